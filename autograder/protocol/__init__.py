"""The data that crosses between the trusted parent and the sandbox child."""
