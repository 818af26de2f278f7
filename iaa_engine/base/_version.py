"""The version of iaa-engine (read by the build from here: pyproject.toml takes it as a dynamic attribute)."""

__version__ = "0.1.0"
