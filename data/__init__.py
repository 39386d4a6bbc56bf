"""Files the package ships: NLTK stopwords, synonym lists, protected-word pairs."""
