"""goal functions of textattack-secondorder."""
