"""An adapter-like package whose backend (``thread_unless_quiet``) starts a thread unless its
module ``zz_quiet`` imports it first: the zygote must import the package's modules in the order
declared."""
