"""ari package."""
