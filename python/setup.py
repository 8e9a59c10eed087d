"""The native part of tfc_lcp: _tfc_lcp, a plain shared library that
tfc_lcp.py loads with ctypes (no Python headers are used; the .so merely
has an extension module's name so that pip places it beside the modules).

Built from the repository's own C sources, one folder up (or where
TFC_SOURCE_DIR points): the lists in lcp/sources.cmake (TFC_LCP_SOURCES,
TFC_LCP_FFI_SOURCES) and base/sources.cmake (TFC_BASE_LCP_SOURCES), as
CMake's libtfc_lcp.so is.
The library includes the LCP core that tfc emits, filled for 2- and 4-byte
tokens; CMake fills it at build time with tools/render.c, and so does this
build: it compiles that renderer with the same C compiler and runs it with
CMake's arguments (the parts' order is read from CMakeLists.txt's
TFC_LCP_CORE_PARTS). Nothing is vendored, so nothing can go stale.

Optional: where there is no C compiler or no sources (an sdist), pip warns
and installs the pure-Python modules; tfc_lcp then needs TFC_LCP_LIBRARY
(a libtfc_lcp.so from CMake's build). Linux and other POSIX systems only
(the index is memory-mapped).
"""
import os
import re
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError

HERE = os.path.dirname(os.path.abspath(__file__))


def source_dir():
    return os.path.abspath(os.environ.get("TFC_SOURCE_DIR") or os.path.join(HERE, ".."))


def cmake_list(path, name):
    """The entries of set(NAME ...) in a CMake file: plain words only."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"set\(\s*%s\s+([^)]*)\)" % re.escape(name), text)
    if not m:
        raise CompileError(f"{path}: no set({name} ...)")
    words = [w for line in m.group(1).splitlines() for w in line.split("#", 1)[0].split()]
    if not words or any("$" in w for w in words):
        raise CompileError(f"{path}: set({name} ...) is not a plain list")
    return words


class BuildNative(build_ext):
    def build_extension(self, ext):
        if ext.name != "_tfc_lcp":
            return super().build_extension(ext)
        src = source_dir()
        sources_cmake = os.path.join(src, "lcp", "sources.cmake")
        if not os.path.exists(sources_cmake):
            raise CompileError(f"no tfc sources at {src} (set TFC_SOURCE_DIR, or TFC_LCP_LIBRARY at run time)")
        try:  # any failure is a CompileError: the extension is optional, pip only warns
            gen = os.path.join(os.path.abspath(self.build_temp), "tfc_lcp_rendered")
            os.makedirs(gen, exist_ok=True)
            self.render(src, gen)
            files = cmake_list(sources_cmake, "TFC_LCP_SOURCES") + cmake_list(sources_cmake, "TFC_LCP_FFI_SOURCES")
            files += cmake_list(os.path.join(src, "base", "sources.cmake"), "TFC_BASE_LCP_SOURCES")
            ext.sources = [os.path.join(src, f) for f in files]
            ext.include_dirs = [os.path.join(src, "lcp"), os.path.join(src, "base"), gen]
            super().build_extension(ext)
        except CompileError:
            raise
        except Exception as e:  # noqa: BLE001 (a compiler that is missing, a renderer that cannot run)
            raise CompileError(f"tfc_lcp's native library: {e}") from e

    def render(self, src, gen):
        """templates/lcp_{types,core parts,build}.inc filled as CMake fills them."""
        tools = [os.path.join(src, "tools", "render.c"), os.path.join(src, "base", "tmpl.c"),
                 os.path.join(src, "base", "diag.c")]
        objs = self.compiler.compile(tools, output_dir=os.path.join(gen, "obj"),
                                     include_dirs=[os.path.join(src, "base")], extra_postargs=["-std=c11"])
        exe = os.path.join(gen, "render")
        self.compiler.link_executable(objs, exe)
        parts = cmake_list(os.path.join(src, "CMakeLists.txt"), "TFC_LCP_CORE_PARTS")
        tmpl = os.path.join(src, "templates")
        for w in (16, 32):
            for part in ("types", "core", "build"):
                ins = [os.path.join(tmpl, f"lcp_{p}.inc") for p in (parts if part == "core" else [part])]
                out = os.path.join(gen, f"lcp_{part}_u{w}.inc")
                r = subprocess.run([exe, out, *ins, f"P=lcp{w}_", f"TOKEN=uint{w}_t", f"TOKEN_BITS={w}",
                                    "QUAL=static inline"], capture_output=True, text=True)
                if r.returncode != 0:
                    raise CompileError(f"rendering {out}: {r.stderr.strip()}")


setup(
    ext_modules=[Extension("_tfc_lcp", sources=["tfc_lcp.py"], optional=True,
                           extra_compile_args=["-std=c11", "-O2", "-fvisibility=hidden", "-pthread"],
                           extra_link_args=["-pthread"], libraries=["m"])],
    cmdclass={"build_ext": BuildNative},
)
