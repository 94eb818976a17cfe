"""The compiled engine core (companion/engine/native.c), built at install where it can be.

Everything else is in pyproject.toml. The extension is optional: without a C compiler or
Python's headers the install still succeeds and the engine uses its pure-Python search
(``companion.engine.compiled`` says so once). ``bootstrap`` installs gcc and python3-dev
with apt where they are missing.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "companion.engine.native",
            sources=["companion/engine/native.c"],
            optional=True,
        )
    ]
)
