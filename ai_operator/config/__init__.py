"""Configuration: the env file format (`envfile`) and the typed settings and routes built from it (`settings`)."""

from ai_operator.config.envfile import EnvEntry, EnvFileError, parse_env_text, read_env_file
from ai_operator.config.settings import (
    DEFAULT_ENV_PATH,
    KEYS,
    ROUTE_OPTIONS,
    ConfigError,
    Route,
    Settings,
    build_settings,
    load_settings,
    require,
)

__all__ = [
    "DEFAULT_ENV_PATH",
    "KEYS",
    "ROUTE_OPTIONS",
    "ConfigError",
    "EnvEntry",
    "EnvFileError",
    "Route",
    "Settings",
    "build_settings",
    "load_settings",
    "parse_env_text",
    "read_env_file",
    "require",
]
