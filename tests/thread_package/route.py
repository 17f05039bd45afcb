"""A module of a package that starts a thread: importing it imports the package (see __init__)."""
