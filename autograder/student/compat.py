"""What the kit's modules use from JAX that older JAX versions name differently.

`jax.monitoring.unregister_event_duration_listener` (trace counting) is
public from jax 0.8.1; jax 0.6.2 to 0.8.0 have it under a private name.
Only names JAX lacks are added; nothing JAX has is replaced.
"""

from __future__ import annotations


def install() -> None:
    import jax.monitoring

    if not hasattr(jax.monitoring, "unregister_event_duration_listener"):
        from jax._src import monitoring

        private = getattr(monitoring, "_unregister_event_duration_listener_by_callback", None)
        if private is not None:
            jax.monitoring.unregister_event_duration_listener = private
