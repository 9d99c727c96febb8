"""The lessons: each experiment of the article, re-run on micrograd2 and narrated (``micrograd2 lesson``)."""
