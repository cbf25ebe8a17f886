#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs the kernel's YNL cli.py (tools/net/ynl) with PyYAML's C loader.

Usage: ynl_cli.py PATH/TO/cli.py [cli.py options]

cli.py parses the spec with yaml.safe_load, PyYAML's pure-Python loader:
in a TCG guest that is about a fifth of every call, and the selftests
make hundreds. libyaml's CSafeLoader builds the same objects from the
same YAML. Everything else is cli.py's own code, unchanged. pin_ynl.py,
which uses the YNL library, imports use_libyaml() from here.
"""

import os
import runpy
import sys

import yaml


def use_libyaml():
    """Points yaml.safe_load, which YNL's nlspec calls, at CSafeLoader."""
    if getattr(yaml, '__with_libyaml__', False):
        yaml.safe_load = lambda stream: yaml.load(stream, Loader=yaml.CSafeLoader)


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().split('\n')[2])
    use_libyaml()
    cli = sys.argv[1]
    sys.argv = [cli] + sys.argv[2:]
    sys.path.insert(0, os.path.dirname(os.path.abspath(cli)))
    runpy.run_path(cli, run_name='__main__')
