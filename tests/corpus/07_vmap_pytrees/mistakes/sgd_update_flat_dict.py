def sgd_update(params, grads, learning_rate):
    # Written for a flat dict of arrays: nested dicts, lists and tuples break it.
    return {name: params[name] - learning_rate * grads[name] for name in params}
