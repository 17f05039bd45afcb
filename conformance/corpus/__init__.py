"""Stage 1, the corpus: the case model, the case files and their loader, the data fills, the op
catalogue and the selection of items. It says what is asked, never what a spec answers.
"""
