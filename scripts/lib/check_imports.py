#!/usr/bin/env python3
"""Fails when a target imports a module of this package that it does not declare in
Package.swift (it would build only because another dependency happens to bring it in).

Input: `swift package dump-package` on stdin. Called by scripts/test.
"""
import glob
import json
import re
import sys

TOOLCHAIN = {"Foundation", "FoundationEssentials", "Dispatch", "Glibc", "Testing", "XCTest", "Synchronization"}

package = json.load(sys.stdin)
undeclared = 0
for target in package["targets"]:
    declared = {name for dependency in target["dependencies"] for value in dependency.values() for name in value[:1]}
    folder = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + target["name"]
    imported = set()
    for path in glob.glob(f"{folder}/**/*.swift", recursive=True):
        with open(path) as source:
            imported |= set(re.findall(r"^(?:@testable )?import (\w+)", source.read(), re.M))
    missing = sorted(imported - declared - TOOLCHAIN - {target["name"]})
    if missing:
        undeclared += 1
        print(f"{target['name']} imports {', '.join(missing)} without declaring it in Package.swift", file=sys.stderr)
sys.exit(1 if undeclared else 0)
