"""nbgrader autograde through the sandbox: the preprocessor, the converters and their guard,
collect, what a submission folder passes on, the settings of ``grade``.
"""
