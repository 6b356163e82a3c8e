"""Test fixture package (see ``pyproject.toml``)."""
