"""constraints of textattack-secondorder."""
