#!/usr/bin/env bash
# The Python package (ctest python_package): `pip install ./python` into a
# fresh venv gives the modules tfc_plan, tfc_spec and tfc_torch, the console
# scripts tfc-plan and tfc-spec, and `python -m tfc_plan` / `-m tfc_spec`,
# all answering from the installed copy; the old `python3 python/X.py`
# paths still run. With torch (the test venv's, $TFC_TORCH_PYTHON or
# SOURCE_DIR/.venv-torch, seen by the fresh venv through a .pth file):
# tfc_torch.apply_plan on a stand-in stage sets requires_grad per
# microbatch as the plan says and refuses a plan of other tensors. The
# install builds tfc_lcp's native part from SOURCE_DIR's C sources (no CMake
# build used) and tfc_lcp answers as the CLI; without sources the install
# still succeeds and tfc_lcp says what to do.
#   package_check.sh TFC SOURCE_DIR
# python/ is copied first so the build writes nothing into the source tree
# (TFC_SOURCE_DIR tells its setup.py where the C sources are).
set -euo pipefail
tfc=$(realpath "$1") src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "package check: $*" >&2; exit 1; }

cp -r "$src/python" "$work/pkg"
rm -rf "$work/pkg/build" "$work/pkg"/*.egg-info
venv=$work/venv/bin
# As the README says it (pip fetches setuptools into an isolated build
# environment); offline, the system's setuptools and wheel instead.
#   pip_install VENV_DIR LOG: installs $work/pkg into a fresh venv there
pip_install() {
  python3 -m venv "$1" || fail "python3 -m venv failed (Debian: apt-get install python3-venv)"
  if ! "$1/bin/pip" install -q --disable-pip-version-check "$work/pkg" >"$2" 2>&1; then
    echo "package check: pip install ./python with build isolation failed (offline?); trying the system's setuptools"
    rm -rf "$1" "$work/pkg/build" "$work/pkg"/*.egg-info
    python3 -m venv --system-site-packages "$1"
    "$1/bin/pip" install -q --disable-pip-version-check --no-build-isolation "$work/pkg" >>"$2" 2>&1 ||
      { cat "$2" >&2; fail "pip install ./python failed (both ways; Debian: python3-setuptools python3-wheel)"; }
  fi
  rm -rf "$work/pkg/build" "$work/pkg"/*.egg-info
}
export TFC_SOURCE_DIR=$src
pip_install "$work/venv" "$work/pip.log"

"$tfc" compile "$src/examples/pytorch_freeze/tiny.yaml" -o "$work/tiny" --skip-cuda-check -q
cd "$work"  # nowhere near python/: imports must come from the venv
"$venv/python" - "$work/venv" <<'PY' || fail "the installed modules"
import sys, os
venv = os.path.realpath(sys.argv[1])
for name in ("tfc_plan", "tfc_spec", "tfc_torch", "tfc_lcp"):
    m = __import__(name)
    assert os.path.realpath(m.__file__).startswith(venv), f"{name} imported from {m.__file__}, not the venv"
import tfc_lcp
lib = tfc_lcp.library_path()
assert lib and os.path.realpath(lib).startswith(venv), f"tfc_lcp's native library is {lib}, not the venv's own build"
print("package check: tfc_plan, tfc_spec, tfc_torch, tfc_lcp import from the venv; tfc_lcp's library was built there")
PY
# tfc_lcp (its pip-built library) against the CLI on a small set.
"$venv/python" "$src/tests/python/lcp_package_check.py" "$tfc" "$work/lcp" || fail "tfc_lcp from the venv"
# Without the C sources the install still succeeds; tfc_lcp says what to do.
TFC_SOURCE_DIR=$work/nowhere pip_install "$work/venv2" "$work/pip2.log"
"$work/venv2/bin/python" -c '
import tfc_lcp, tfc_plan
try:
    tfc_lcp.open("x.set")
    raise SystemExit("tfc_lcp opened a set without a library")
except tfc_lcp.Error as e:
    assert "TFC_LCP_LIBRARY" in str(e), e
' || fail "tfc_lcp without its native library"
echo "package check: without the C sources pip installs the Python modules and tfc_lcp names TFC_LCP_LIBRARY"
"$venv/tfc-plan" summary "$work/tiny/plan.json" >"$work/summary.txt" && grep -q "^torch_tiny: 1F1B" "$work/summary.txt" ||
  fail "tfc-plan summary"
"$venv/python" -m tfc_plan mask "$work/tiny/plan.json" --stage 0 --microbatch 0 --step 1000 --json |
  cmp -s - <(python3 "$src/python/tfc_plan.py" mask "$work/tiny/plan.json" --stage 0 --microbatch 0 --step 1000 --json) ||
  fail "python -m tfc_plan and python/tfc_plan.py disagree"
"$venv/tfc-spec" --help >"$work/help.txt" && grep -q "from-hf" "$work/help.txt" || fail "tfc-spec --help"
"$venv/python" -m tfc_spec --help >"$work/help.txt" && grep -q "from-hf" "$work/help.txt" || fail "python -m tfc_spec --help"
"$venv/tfc-spec" from-hf "$src/tests/python/hf_configs/Llama-3.2-1B.json" --ranks 4 -o "$work/from_pkg.yaml" -q ||
  fail "tfc-spec from-hf"
"$tfc" check "$work/from_pkg.yaml" -q || fail "the spec tfc-spec wrote does not check"
cmp -s "$work/from_pkg.yaml" <(python3 "$src/python/tfc_spec.py" from-hf "$src/tests/python/hf_configs/Llama-3.2-1B.json" \
  --ranks 4 -q) || fail "tfc-spec and python3 python/tfc_spec.py write different specs"
echo "package check: tfc-plan, tfc-spec, python -m tfc_plan / tfc_spec work"

tpy=${TFC_TORCH_PYTHON:-$src/.venv-torch/bin/python}
if ! "$tpy" -c 'import torch' 2>/dev/null; then
  [ -n "${CI:-}" ] && fail "no torch at $tpy: in CI the torch part is required"
  echo "package check: no torch at $tpy: the tfc_torch part skipped"
  exit 0
fi
site=$("$venv/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
"$tpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' >"$site/torch_from_elsewhere.pth"
"$venv/python" - "$work/tiny/plan.json" <<'PY' || fail "tfc_torch.apply_plan"
import sys
import torch
import tfc_plan, tfc_torch

plan = tfc_plan.Plan.load(sys.argv[1])
step = plan.warmup + plan.ramp + 5


class Stage:
    """The three calls a pipeline runtime makes, recording what was frozen."""
    def __init__(self, index, module):
        self.stage_index, self.submod, self.num_stages, self.seen = index, module, plan.stage_count, []

    def _record(self, kind, mb):
        self.seen.append((kind, mb, sorted(n for n, p in self.submod.named_parameters() if not p.requires_grad)))

    def forward_one_chunk(self, mb, *a, **k):
        self._record("F", mb)

    def backward_one_chunk(self, mb, loss=None, full_backward=True, last_backward=False):
        self._record("B" if full_backward else "I", mb)

    def backward_weight_one_chunk(self, mb, last_backward=False):
        self._record("W", mb)


def module_for(stage):
    m = torch.nn.Module()
    for name, numel in plan.params[stage]:
        parts = name.split(".")
        owner = m
        for p in parts[:-1]:
            if not hasattr(owner, p):
                owner.add_module(p, torch.nn.Module())
            owner = getattr(owner, p)
        owner.register_parameter(parts[-1], torch.nn.Parameter(torch.zeros(numel)))
    return m


frozen_any = 0
for s in range(plan.stage_count):
    st = Stage(s, module_for(s))
    fz = tfc_torch.apply_plan(st, sys.argv[1], step)
    for mb in range(plan.microbatches):
        st.forward_one_chunk(mb, (), {})
        st.backward_one_chunk(mb, full_backward=False)
        st.backward_weight_one_chunk(mb)
    for kind, mb, off in st.seen:
        want = sorted(plan.frozen_names(s, mb, step))
        assert off == want, f"stage {s} {kind}{mb}: frozen {off}, the plan says {want}"
        frozen_any += len(off)
    fz.remove()
    assert all(p.requires_grad for p in st.submod.parameters()), "remove() left tensors frozen"
assert frozen_any, "the plan froze nothing at the step: the check would not see freezing"

# A stage whose tensors are not the plan's: refused, naming the first mismatch.
m = module_for(1)
name, numel = plan.params[1][1]
owner = m
for p in name.split(".")[:-1]:
    owner = getattr(owner, p)
setattr(owner, name.split(".")[-1], torch.nn.Parameter(torch.zeros(numel + 1)))
try:
    tfc_torch.apply_plan(Stage(1, m), plan, step)
    raise SystemExit("apply_plan took a stage whose tensor 1 has another size")
except tfc_torch.PlanMismatch as e:
    assert "tensor 1" in str(e) and repr(name) in str(e), e

# A tensor the trainer froze itself stays frozen under the plan, on every
# call, and after remove(); the others follow the plan and come back on.
m = module_for(0)
own = plan.params[0][0][0]
dict(m.named_parameters())[own].requires_grad_(False)
st = Stage(0, m)
fz = tfc_torch.apply_plan(st, plan, step)
for mb in range(plan.microbatches):
    st.forward_one_chunk(mb, (), {})
for kind, mb, off in st.seen:
    want = sorted(set(plan.frozen_names(0, mb, step)) | {own})
    assert off == want, f"stage 0 {kind}{mb} with {own} frozen by the trainer: frozen {off}, want {want}"
fz.remove()
grads = {n: p.requires_grad for n, p in m.named_parameters()}
assert grads[own] is False and all(v for n, v in grads.items() if n != own), f"after remove(): {grads}"

# A microbatch the plan does not have (a plan for fewer microbatches):
# refused at its first call, not left unfrozen.
st = Stage(0, module_for(0))
fz = tfc_torch.apply_plan(st, plan, step)
try:
    st.forward_one_chunk(plan.microbatches, (), {})
    raise SystemExit("apply_plan ran a microbatch past the plan's")
except tfc_torch.PlanMismatch as e:
    assert f"microbatch {plan.microbatches}, but the plan has microbatches 0 to {plan.microbatches - 1}" in str(e), e
fz.remove()

# tfc_plan: a step that is not an integer is refused, not failed deep inside.
try:
    plan.frozen_tensors(0, 0, 100.5)
    raise SystemExit("frozen_tensors took step 100.5")
except ValueError as e:
    assert "step must be an integer" in str(e), e
print(f"package check: tfc_torch.apply_plan froze {frozen_any} (call, tensor) pairs as the plan says; "
      "a mismatched stage, and a microbatch past the plan's, are refused; the trainer's own frozen tensors stay so")

# tfc_spec.spec_from_modules: a parameter that needs no gradient is said
# (it dilutes the plan's ratios); arguments of the wrong kind are SpecErrors.
import warnings
import tfc_spec
a, b = torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)
a.weight.requires_grad_(False)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    tfc_spec.spec_from_modules([a, b], name="x", ranks=2, microbatches=2)
assert any("do not require grad ('weight' first)" in str(x.message) for x in w), [str(x.message) for x in w]
for args, needle in ((([b, 3],), "stage 1 is a int, not a torch.nn.Module"),
                     (([b, b],), "timing source must be a number"), (([b, b],), "timing scale must be in")):
    kw = {"ranks": 2, "microbatches": 2}
    if "source" in needle:
        kw["timing"] = {"source": "model"}
    if "scale" in needle:
        kw["timing"] = {"source": "trace", "file": "t.json", "frozen_file": "f.json", "scale": "x"}
    try:
        tfc_spec.spec_from_modules(*args, name="x", **kw)
        raise SystemExit(f"spec_from_modules took {kw}")
    except tfc_spec.SpecError as e:
        assert needle in str(e), e
print("package check: spec_from_modules says which parameters need no gradient; bad arguments are SpecErrors")

# tfc_torch.profile's "everything frozen" keeps the first stage's first
# tensor that takes a gradient, so its backward still runs (docs/torch.md);
# a tensor the trainer froze itself (here the first) is not that tensor.
import tempfile
m = torch.nn.Sequential(torch.nn.Embedding(8, 4), torch.nn.Linear(4, 4), torch.nn.Linear(4, 4))
m[0].weight.requires_grad_(False)
class First(Stage):
    is_first = True
st = First(0, m)
with tempfile.TemporaryDirectory() as out:
    tfc_torch.profile(lambda: st.backward_one_chunk(0), [st], out, steps=1, warmup=0)
frozen_seen = {tuple(names) for kind, mb, names in st.seen}
want = {("0.weight",), ("0.weight", "1.bias", "2.bias", "2.weight")}  # nothing frozen, everything frozen
assert frozen_seen == want, f"profile froze {sorted(frozen_seen)}: want {sorted(want)}"
assert m[0].weight.requires_grad is False and m[1].weight.requires_grad, "profile did not restore requires_grad"
print("package check: profile's frozen mode keeps the first stage's first tensor that takes a gradient")
PY
