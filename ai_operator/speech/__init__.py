"""speech package."""
