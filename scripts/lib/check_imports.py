#!/usr/bin/env python3
"""Fails when a target imports a module of this package that it does not declare in
Package.swift (it would build only because another dependency happens to bring it in), or
when a layer reaches one it must stay clear of, through any chain of dependencies.

Input: `swift package dump-package` on stdin. Called by scripts/test.
"""
import glob
import json
import re
import sys

TOOLCHAIN = {"Foundation", "FoundationEssentials", "Dispatch", "Glibc", "Testing", "XCTest", "Synchronization"}

# What each layer must not depend on, directly or not (the README's Layout says why).
KEPT_APART = {
    # The disk format stands on the codec runtime, not on the network API; the time zones are
    # handed to it (StoreOptions.timeZones, ArchiveContext).
    "WaterStore": {"WaterProtocol", "WaterZoneInfo"},
    # Home Assistant is plugged into the server by water-server: neither the server nor its tests
    # link libmosquitto.
    "WaterServer": {"WaterHome", "CMosquitto"},
    "WaterServerTests": {"WaterHome", "CMosquitto"},
}

package = json.load(sys.stdin)
declared_by_target = {
    target["name"]: {name for dependency in target["dependencies"] for value in dependency.values() for name in value[:1]}
    for target in package["targets"]
}


def reached(name, seen=None):
    """Every target `name` depends on, through any chain."""
    seen = set() if seen is None else seen
    for dependency in declared_by_target.get(name, set()):
        if dependency not in seen:
            seen.add(dependency)
            reached(dependency, seen)
    return seen


failures = 0
for target in package["targets"]:
    declared = declared_by_target[target["name"]]
    folder = target.get("path") or ("Tests/" if target["type"] == "test" else "Sources/") + target["name"]
    imported = set()
    for path in glob.glob(f"{folder}/**/*.swift", recursive=True):
        with open(path) as source:
            imported |= set(re.findall(r"^(?:@testable )?import (\w+)", source.read(), re.M))
    missing = sorted(imported - declared - TOOLCHAIN - {target["name"]})
    if missing:
        failures += 1
        print(f"{target['name']} imports {', '.join(missing)} without declaring it in Package.swift", file=sys.stderr)
    forbidden = sorted(reached(target["name"]) & KEPT_APART.get(target["name"], set()))
    if forbidden:
        failures += 1
        print(f"{target['name']} depends on {', '.join(forbidden)}, which it must stay clear of", file=sys.stderr)
sys.exit(1 if failures else 0)
