"""The one error type for bad user input (config files and CLI arguments)."""


class ConfigError(ValueError):
    """A config value or argument is invalid; the message names the key and what is allowed."""
