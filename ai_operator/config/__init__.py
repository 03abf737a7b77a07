"""Configuration: the env file format (`envfile`), every setting declared once (`schema`), value checks
(`values`), routes (`routes`) and the one typed `Settings` built from them (`settings`)."""

from ai_operator.config.envfile import EnvEntry, EnvFileError, parse_env_text, read_env_file
from ai_operator.config.routes import ROUTE_OPTIONS, HandoffTarget, Route
from ai_operator.config.settings import (
    DEFAULT_ENV_PATH,
    ConfigError,
    Settings,
    build_settings,
    load_settings,
    reload_settings,
    require,
)

__all__ = [
    "DEFAULT_ENV_PATH",
    "ROUTE_OPTIONS",
    "ConfigError",
    "EnvEntry",
    "EnvFileError",
    "HandoffTarget",
    "Route",
    "Settings",
    "build_settings",
    "load_settings",
    "parse_env_text",
    "read_env_file",
    "reload_settings",
    "require",
]
