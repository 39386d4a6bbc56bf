"""metrics of textattack-secondorder."""
