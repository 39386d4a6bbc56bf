"""search methods of textattack-secondorder."""
