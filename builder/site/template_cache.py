"""Compiled templates kept between builds: Jinja's bytecode cache, sealed like every other cache.

Compiling the site's templates and pages costs about 0.6 s of every build, and their source
rarely changes. Jinja checks each entry against the template's source (a changed template is
compiled afresh); the entries are the `jinja` shelf of the build's one cache (builder/core/cache.py),
sealed, so a planted file, which would be run as code, is ignored instead. The folder is named after what the code Jinja writes
depends on: its version and the environment's class and options (a sandbox compiles its checks
into the code). Within one process, what it compiled also serves a new cache folder (_compiled).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import jinja2
from jinja2.bccache import Bucket

from builder.core.cache import CacheFolder, Shelf


# What this process compiled, by (environment folder, Jinja's key): a process that builds into
# many cache folders (the tests) compiled every template again for each (about 11 s of the
# suite). Only code compiled here is kept, never an entry read from disk, and Jinja still drops
# an entry whose source checksum differs; bounded by COMPILED_KEPT entries.
_compiled: dict[tuple[str, str], bytes] = {}
COMPILED_KEPT = 4096


class SealedBytecodeCache(jinja2.BytecodeCache):
    def __init__(self, shelf: Shelf):
        self.shelf = shelf
        self.folder = shelf.folder
        self.namespace = shelf.folder.name if shelf.folder is not None else ""

    def load_bytecode(self, bucket: Bucket) -> None:
        name = f"{bucket.key}.jinja"
        data = self.shelf.read(name)
        if data is None and (data := _compiled.get((self.namespace, bucket.key))) is not None:
            self.shelf.write(name, data)  # the folder holds what it would have after compiling
        if data is not None:
            bucket.bytecode_from_string(data)  # Jinja drops it unless its source checksum matches

    def dump_bytecode(self, bucket: Bucket) -> None:
        data = bucket.bytecode_to_string()
        if len(_compiled) >= COMPILED_KEPT:
            _compiled.clear()
        _compiled[(self.namespace, bucket.key)] = data
        self.shelf.write(f"{bucket.key}.jinja", data)


def bytecode_cache(cache_dir: Path | None, env_class: type[jinja2.Environment], options: dict[str, Any]) -> SealedBytecodeCache | None:
    """The cache for an environment of `env_class` made with `options`; None without a cache folder."""
    if cache_dir is None:
        return None
    generator = env_class.code_generator_class  # the sandbox's own writes `~` as a weighed call
    described = (f"{jinja2.__version__}\0{env_class.__module__}.{env_class.__qualname__}\0"
                 f"{generator.__module__}.{generator.__qualname__}\0{sorted(options.items())!r}")
    return SealedBytecodeCache(CacheFolder(cache_dir).shelf("jinja").sub(hashlib.sha256(described.encode()).hexdigest()[:16]))


def template_from_string(env: jinja2.Environment, source: str) -> jinja2.Template:
    """`env.from_string(source)`, its compiled code kept in the environment's bytecode cache."""
    cache = env.bytecode_cache
    if cache is None:
        return env.from_string(source)
    bucket = cache.get_bucket(env, hashlib.sha256(source.encode()).hexdigest(), None, source)
    if bucket.code is None:
        bucket.code = env.compile(source)
        cache.set_bucket(bucket)
    return env.template_class.from_code(env, bucket.code, env.make_globals(None), None)
