#!/usr/bin/env python3
# Code-size map of a wasm module: code bytes per function, grouped by library/namespace (docs/wasm-size.md).
#
#   python3 scripts/wasm_size_map.py MODULE.wasm [--top N] [--funcs N] [--json]
#
# MODULE.wasm needs function names: link a scratch copy with --profiling-funcs (or -g2), e.g.
#   scripts/wasm_size_map.py --relink build-wasm-simd   # relinks cvmrt_wasm with --profiling-funcs
# into /tmp and maps that. Names come from the "name" custom section, sizes from the code section
# (each body's bytes including its size prefix); the rest (data, imports, exports, ...) is listed
# per section. Names are demangled with llvm-cxxfilt / c++filt when one is on PATH.
import argparse
import gzip
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

SECTIONS = {0: 'custom', 1: 'type', 2: 'import', 3: 'function', 4: 'table', 5: 'memory',
            6: 'global', 7: 'export', 8: 'start', 9: 'element', 10: 'code', 11: 'data',
            12: 'datacount', 13: 'tag'}


def uleb(b, i):
    result = shift = 0
    while True:
        byte = b[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, i


def parse(path):
    b = open(path, 'rb').read()
    if b[:4] != b'\0asm':
        sys.exit(f'{path}: not a wasm module')
    i = 8
    sections = []  # (name, size)
    bodies = []    # size of each defined function body
    names = {}     # function index -> name
    n_imported_funcs = 0
    while i < len(b):
        sid = b[i]
        size, j = uleb(b, i + 1)
        end = j + size
        name = SECTIONS.get(sid, f'id{sid}')
        if sid == 0:
            nlen, k = uleb(b, j)
            cname = b[k:k + nlen].decode('utf-8', 'replace')
            name = f'custom:{cname}'
            if cname == 'name':
                k += nlen
                while k < end:
                    sub = b[k]
                    ssize, k2 = uleb(b, k + 1)
                    if sub == 1:
                        count, m = uleb(b, k2)
                        for _ in range(count):
                            idx, m = uleb(b, m)
                            ln, m = uleb(b, m)
                            names[idx] = b[m:m + ln].decode('utf-8', 'replace')
                            m += ln
                    k = k2 + ssize
        elif sid == 2:
            count, k = uleb(b, j)
            for _ in range(count):
                for _ in range(2):
                    ln, k = uleb(b, k)
                    k += ln
                kind = b[k]
                k += 1
                if kind == 0:
                    _, k = uleb(b, k)
                    n_imported_funcs += 1
                elif kind == 1:
                    k += 1
                    flags, k = uleb(b, k)
                    _, k = uleb(b, k)
                    if flags & 1:
                        _, k = uleb(b, k)
                elif kind == 2:
                    flags, k = uleb(b, k)
                    _, k = uleb(b, k)
                    if flags & 1:
                        _, k = uleb(b, k)
                elif kind == 3:
                    k += 2
                elif kind == 4:
                    k += 1
                    _, k = uleb(b, k)
        elif sid == 10:
            count, k = uleb(b, j)
            for _ in range(count):
                bsize, k2 = uleb(b, k)
                bodies.append(b[k:k2 + bsize])
                k = k2 + bsize
        sections.append((name, end - i))
        i = end
    funcs = [(names.get(n_imported_funcs + f, f'func{n_imported_funcs + f}'), body)
             for f, body in enumerate(bodies)]
    return len(b), sections, funcs


def demangle(names):
    tool = shutil.which('llvm-cxxfilt') or shutil.which('llvm-cxxfilt-14') or shutil.which('c++filt')
    if not tool:
        return names
    out = subprocess.run([tool], input='\n'.join(names), capture_output=True, text=True).stdout
    res = out.split('\n')[:len(names)]
    return res if len(res) == len(names) else names


# (group, regex on the demangled name); first match wins.
GROUPS = [
    ('libc++ iostream/locale/streams', r'std::__2::(basic_(i|o|io)?stream|basic_streambuf|basic_stringbuf|basic_(i|o)?stringstream|basic_filebuf|basic_ios|ios_base|locale|ctype|num_put|num_get|codecvt|moneypunct|money_get|money_put|time_get|time_put|numpunct|collate|messages|__num_put|__num_get|__money|__time|__codecvt|__stdoutbuf|__stdinbuf|ostreambuf_iterator|istreambuf_iterator|__pad_and_output|__widen|__check_grouping|__scan_keyword|ios_base|__iostream_category|__cloc|__libcpp_|use_facet|has_facet)|^std::__2::__1|^std::__2::(cout|cerr|cin|clog|wcout|wcerr|wcin|wclog)\b|DoIOSInit|__stdio_|__do_nothing'),
    ('kernels: scalar reference backend', r'cvm::kernel::scalar::'),
    ('kernels: wasm SIMD128 backend', r'cvm::kernel::wasm::'),
    ('kernels: portable backend', r'cvm::kernel::portable::'),
    ('kernels: other (cvm::kernel)', r'cvm::kernel::'),
    ('nlohmann json', r'nlohmann::'),
    ('flatbuffers', r'flatbuffers::|cvm::fb::|::fb::.*Verify|Verify.*Buffer'),
    ('libc++abi / exceptions / RTTI', r'^__cxa_|^__cxxabiv1|__gxx_personality|_Unwind_|^__cxa|typeinfo|^std::(exception|bad_|logic_error|runtime_error|invalid_argument|out_of_range|length_error|domain_error|overflow_error|range_error)|^std::__2::(bad_|logic_error|runtime_error|out_of_range|length_error|__throw_)|__cxa_demangle|\(anonymous namespace\)::itanium_demangle|^invoke_|emscripten_longjmp|__resumeException|__cxa_find_matching_catch|^getTempRet|setThrew'),
    ('libc++ strings/containers/misc', r'^std::__2::|^void std::__2::|^bool std::__2::|^int std::__2::|^unsigned long std::__2::|^char\* std::__2::'),
    ('libc (printf/strtod/malloc/...)', r'^(printf_core|fmt_[a-z]|pop_arg|pad|out|vfprintf|vsnprintf|snprintf|sprintf|fprintf|__vfprintf_internal|__strtod|strtod|strtof|strtold|__floatscan|decfloat|hexfloat|scanexp|__shgetc|__shlim|__intscan|strtol|strtoul|strtoll|strtoull|frexp|fmt_fp|__DOUBLE_BITS|dlmalloc|dlfree|dlrealloc|emmalloc|malloc|free|realloc|calloc|posix_memalign|aligned_alloc|memalign|sbrk|mem(cpy|set|move|cmp|chr)|str[a-z]*|__(stdio|towrite|toread|fwritex|overflow|uflow|lockfile|unlockfile|fseeko|ftello|stpcpy|stpncpy|memrchr|strchrnul|syscall_ret|errno_location|lctrans|strerror_l)|fwrite|fputs|fflush|fclose|fopen|fread|fseek|ftell|puts|putc|fputc|getc|ungetc|vsscanf|sscanf|vfscanf|__fdopen|__fmodeflags|wcrtomb|wctomb|mbrtowc|mbtowc|mbsrtowcs|wcsnrtombs|mbsnrtowcs|btowc|wcslen|wmem[a-z]*|__uselocale|newlocale|freelocale|__newlocale|__loc_is_allocated|__get_locale|__nl_langinfo|nl_langinfo|isw?[a-z]+_l|tolower|toupper|towlower|towupper|__ctype_|catopen|catgets|catclose|abort|__assert_fail|exit|_Exit|atexit|__cxa_atexit|__funcs_on_exit|__stdio_exit|getenv|qsort|sn_write|__emscripten_stdout|emscripten_|stackAlloc|stackSave|stackRestore|__errno_location|__wasm_call_ctors|__lock|__unlock|__lctrans_impl|__get_tp|pthread_|__pthread|__time|clock|gettimeofday|__clock_gettime|fmod|fmodl|ldexp|scalbn|scalbnl|copysignl|__ashlti3|__lshrti3|__multi3|__divti3|__udivti3|__umodti3|__modti3|__udivmodti4|__letf2|__getf2|__eqtf2|__netf2|__lttf2|__gttf2|__addtf3|__subtf3|__multf3|__divtf3|__extenddftf2|__trunctfdf2|__floatsitf|__floatunsitf|__fixtfsi|__fixunstfsi|__unordtf2|fabsl|frexpl|__fpclassifyl|__signbitl|dummy|dummy_1|__emscripten|_emscripten|em_|__mo_lookup|swapc|__lctrans_cur|expf|exp|logf|log|powf|pow|sqrtf|tanhf|tanh|erff|erf|exp2f|log2f|roundf|round|floorf|ceilf|nearbyint|rint|lrint|__expo2|__math_|__cos|__sin|cos|sin|sinf|cosf|atan|atanf|__rem_pio2)($|[^a-zA-Z_0-9])'),
    ('cvm model/graph/session', r'cvm::graph::|cvm::(Session|Model|NodeKernelPlan|OpProfile)|Session|CVMModel|CVMSession|cvm::capi::.*model'),
    ('cvm params (load/save)', r'cvm::params|ParamDict|params_detail|XXH|xxh'),
    ('cvm C ABI', r'^CVM[A-Z]|cvm::capi::'),
    ('cvm ops (definitions, inference, attrs)', r'cvm::ops::|AttrValue|AttrMap'),
    ('cvm core (arrays, registry, other)', r'cvm::|^cvm'),
]
_compiled = [(g, re.compile(p)) for g, p in GROUPS]


def group_of(name):
    for g, rx in _compiled:
        if rx.search(name):
            return g
    return 'other'


def relink(build_dir, extra):
    """Relinks <build_dir>'s cvmrt_wasm with extra flags into a temp dir; returns the .wasm path."""
    link = os.path.join(build_dir, 'wasm', 'CMakeFiles', 'cvmrt_wasm.dir', 'link.txt')
    cmd = open(link).read().strip()
    out = tempfile.mkdtemp(prefix='wasm-size-map-')
    cmd = re.sub(r'-o \S+\.mjs', f'-o {out}/m.mjs', cmd) + ' ' + extra
    env = dict(os.environ, NODE_PATH=os.environ.get('NODE_PATH', '/usr/share/nodejs'))
    subprocess.run(cmd, shell=True, check=True, cwd=os.path.join(build_dir, 'wasm'), env=env)
    return f'{out}/m.wasm'


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('wasm', nargs='?')
    ap.add_argument('--relink', metavar='BUILD_DIR',
                    help='relink BUILD_DIR/wasm cvmrt_wasm with --profiling-funcs and map that')
    ap.add_argument('--top', type=int, default=25, help='groups to print (default 25)')
    ap.add_argument('--funcs', type=int, default=15, help='largest functions to print')
    ap.add_argument('--json', action='store_true')
    a = ap.parse_args()
    path = relink(a.relink, '--profiling-funcs') if a.relink else a.wasm
    if not path:
        ap.error('give MODULE.wasm or --relink BUILD_DIR')
    total, sections, funcs = parse(path)
    names = demangle([n for n, _ in funcs])
    bodies = defaultdict(list)
    for d, (_, body) in zip(names, funcs):
        bodies[group_of(d)].append(body)
    funcs = [(d, len(body)) for d, (_, body) in zip(names, funcs)]
    groups = defaultdict(lambda: [0, 0, 0])
    for n, s in funcs:
        g = groups[group_of(n)]
        g[0] += s
        g[1] += 1
    # gzip -9 of each group's bodies on their own: roughly what the group costs in the download
    for name, bs in bodies.items():
        groups[name][2] = len(gzip.compress(b''.join(bs), 9))
    code = sum(s for _, s in funcs)
    if a.json:
        json.dump({'total': total, 'sections': sections, 'groups': groups,
                   'functions': sorted(funcs, key=lambda x: -x[1])}, sys.stdout, indent=1)
        return
    gz = len(gzip.compress(open(path, 'rb').read(), 9))
    print(f'{path}: {total} bytes ({gz} gzip -9), {len(funcs)} functions, code {code} bytes')
    print('\nsections:')
    for n, s in sections:
        print(f'  {n:<28} {s:>9}')
    print(f'\ncode bytes by group (of {code}; gz = gzip -9 of the group alone):')
    print(f'  {"group":<40} {"bytes":>9} {"share":>6} {"gz":>8} {"funcs":>6}')
    for g, (s, c, z) in sorted(groups.items(), key=lambda x: -x[1][0])[:a.top]:
        print(f'  {g:<40} {s:>9} {100 * s / code:5.1f}% {z:>8} {c:>6}')
    print(f'\nlargest {a.funcs} functions:')
    for n, s in sorted(funcs, key=lambda x: -x[1])[:a.funcs]:
        print(f'  {s:>8}  {n[:150]}')


if __name__ == '__main__':
    main()
