#!/usr/bin/python3
"""scripts/check_layers.py against fake trees built in a temporary folder: a clean tree passes,
and each kind of fault is rejected with a line naming it. Usage: check_layers_test.py CHECKER"""
import os
import subprocess
import sys
import tempfile
import unittest

CHECKER = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "scripts", "check_layers.py")


def make_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


def run(files):
    with tempfile.TemporaryDirectory() as root:
        make_tree(root, files)
        done = subprocess.run([sys.executable, CHECKER, root], capture_output=True, text=True)
        return done.returncode, done.stdout


# sim/low <- sim/high, each a library linking what it includes.
CLEAN = {
    "sim/CMakeLists.txt": "add_subdirectory(low)\nadd_subdirectory(high)\n",
    "sim/low/CMakeLists.txt": "add_library(lib_low STATIC low.cpp)\n",
    "sim/low/low.hpp": "#pragma once\n",
    "sim/low/low.cpp": '#include "sim/low/low.hpp"\n',
    "sim/high/CMakeLists.txt":
        "add_library(lib_high STATIC high.cpp)\ntarget_link_libraries(lib_high PUBLIC lib_low)\n",
    "sim/high/high.cpp": '#include "sim/low/low.hpp"\n',
    "apps/CMakeLists.txt": "add_executable(app main.cpp)\ntarget_link_libraries(app PRIVATE lib_high)\n",
    "apps/main.cpp": '#include "sim/high/high.hpp"\n#include "sim/low/low.hpp"\n',
}


class CheckLayers(unittest.TestCase):
    def test_clean_tree_passes(self):
        code, out = run(CLEAN)
        self.assertEqual(code, 0, out)
        self.assertIn("3 folders with targets, 2 link edges", out)

    def test_include_cycle_is_rejected_with_its_files(self):
        tree = dict(CLEAN)
        tree["sim/low/low.cpp"] += '#include "sim/high/high.hpp"\n'
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("include cycle among {sim/high, sim/low}: sim/high -> sim/low (sim/high/high.cpp:1); "
                      "sim/low -> sim/high (sim/low/low.cpp:2)", out)

    def test_link_cycle_is_rejected(self):
        tree = dict(CLEAN)
        tree["sim/low/CMakeLists.txt"] += "target_link_libraries(lib_low PRIVATE lib_high)\n"
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("link cycle among {sim/high, sim/low}: sim/high -> sim/low -> sim/high", out)

    def test_include_without_link_is_rejected(self):
        tree = dict(CLEAN)
        tree["sim/high/CMakeLists.txt"] = "add_library(lib_high STATIC high.cpp)\n"
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("sim/high/high.cpp:1: sim/high includes sim/low but links none of its "
                      "libraries (lib_low)", out)

    def test_link_without_include_is_rejected(self):
        tree = dict(CLEAN)
        tree["sim/high/high.cpp"] = "int f() { return 1; }\n"
        code, out = run(tree)
        self.assertEqual(code, 1, out)
        self.assertIn("sim/high/CMakeLists.txt: sim/high links sim/low (lib_low) but includes "
                      "nothing from it", out)

    def test_subfolder_without_cmake_belongs_to_its_parent(self):
        tree = dict(CLEAN)
        tree["sim/high/detail/helper.cpp"] = '#include "sim/low/low.hpp"\n'
        code, out = run(tree)
        self.assertEqual(code, 0, out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
