"""transformations of textattack-secondorder."""
