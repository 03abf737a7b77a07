"""simpbx package."""
