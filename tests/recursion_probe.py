"""A module that changes interpreter-wide settings when imported, as onnx2tf does (it raises the
recursion limit and silences warnings): the zygote may import it, but the workers it forks must
keep the interpreter's own settings."""

import sys
import warnings

sys.setrecursionlimit(123_456)
warnings.simplefilter("ignore")
