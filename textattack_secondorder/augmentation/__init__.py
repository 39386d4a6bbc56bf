"""augmentation of textattack-secondorder."""
