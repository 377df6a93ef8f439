"""Reading a submission as data, bounded before anything trusts it: the student id rule, the
folder's bounds, the notebook's shape and cells, the helper cell as a module.
"""
