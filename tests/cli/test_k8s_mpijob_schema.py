"""configs/k8s-mpijob.yaml is a valid kubeflow.org/v2beta1 MPIJob: it validates against the MPIJob CRD's
openAPIV3Schema (tests/data/k8s, from kubeflow/mpi-operator), and deliberately broken copies are rejected, so the
validator is shown to bite. Exit 0 pass, 1 fail, 77 (skipped) without PyYAML or jsonschema."""
import copy, json, os, sys

try:
    import yaml, jsonschema
except ImportError as e:
    print(f"skipped: {e.name} is not importable by {sys.executable} (Debian: python3-yaml python3-jsonschema)")
    sys.exit(77)

SRC = os.environ.get("FABCHECK_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
YAML = os.path.join(SRC, "configs", "k8s-mpijob.yaml")
SCHEMA = os.path.join(SRC, "tests", "data", "k8s", "mpijob-v2beta1-openapi-schema.json")
failures = []


def check(cond, msg):
    print(("ok:   " if cond else "FAIL: ") + msg)
    if not cond:
        failures.append(msg)


def kube(node):
    """The schema file is the CRD's, unmodified; this maps its Kubernetes dialect onto plain JSON Schema here:
    - x-kubernetes-int-or-string: integer or string (controller-gen already adds that anyOf; ensured, not assumed);
    - nullable (OpenAPI 3.0): null is allowed as well;
    - unknown fields are rejected, as `kubectl apply` does by default (--validate=strict), unless the node says
      x-kubernetes-preserve-unknown-fields or already has additionalProperties (a map, e.g. mpiReplicaSpecs).
    The other x-kubernetes-* keys (list-type, map-type, list-map-keys) only steer server-side merging."""
    if isinstance(node, list):
        return [kube(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: kube(v) for k, v in node.items()}
    if node.get("x-kubernetes-int-or-string"):
        node.pop("type", None)
        node.setdefault("anyOf", [{"type": "integer"}, {"type": "string"}])
    if node.get("nullable") and "type" in node:
        node["type"] = [node["type"], "null"]
    if ("properties" in node and "additionalProperties" not in node
            and not node.get("x-kubernetes-preserve-unknown-fields")):
        node["additionalProperties"] = False
    return node


# OpenAPI 3.0 formats that jsonschema does not know: Kubernetes rejects integers out of their declared width.
formats = jsonschema.FormatChecker()
formats.checks("int32")(lambda v: not isinstance(v, int) or -2**31 <= v < 2**31)
formats.checks("int64")(lambda v: not isinstance(v, int) or -2**63 <= v < 2**63)

with open(SCHEMA) as f:
    schema = kube(json.load(f))
# OpenAPI 3.0's schema object is a JSON Schema draft-4/5 dialect (boolean exclusiveMinimum and all).
validator = jsonschema.Draft4Validator(schema, format_checker=formats)


def errors(doc):
    return [f"{'.'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in validator.iter_errors(doc)]


with open(YAML) as f:
    job = yaml.safe_load(f)
check(job.get("apiVersion") == "kubeflow.org/v2beta1", f"apiVersion is kubeflow.org/v2beta1 ({job.get('apiVersion')})")
check(job.get("kind") == "MPIJob", f"kind is MPIJob ({job.get('kind')})")
base_errs = errors(job)
check(not base_errs, f"{os.path.relpath(YAML, SRC)} validates against the v2beta1 openAPIV3Schema" +
      "".join(f"\n      {e}" for e in base_errs))
# The CRD leaves mpiReplicaSpecs an open map and the operator ignores keys it does not know, so a misspelt
# replica type would silently run no workers: checked here, beside the schema.
keys = set(job.get("spec", {}).get("mpiReplicaSpecs", {}))
check(keys <= {"Launcher", "Worker"} and "Launcher" in keys, f"replica types are Launcher/Worker ({sorted(keys)})")


def new_errors(doc):
    """Errors DOC has beyond the shipped file's own, so a broken copy is not 'rejected' for an error it inherited."""
    return [e for e in errors(doc) if e not in base_errs]


def broken(what, edit):
    """A copy with EDIT applied must be rejected by the schema."""
    doc = copy.deepcopy(job)
    edit(doc["spec"])
    errs = new_errors(doc)
    check(bool(errs), f"rejects {what}" + (f": {errs[0]}" if errs else ": accepted"))


def limits(s):
    return s["mpiReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["resources"]["limits"]


broken('slotsPerWorker: "one"', lambda s: s.update(slotsPerWorker="one"))
broken("Worker replicas: 2**31 (over int32)", lambda s: s["mpiReplicaSpecs"]["Worker"].update(replicas=2**31))
broken("a misspelt field (runPolicy.cleanPodPolcy)", lambda s: s["runPolicy"].update(cleanPodPolcy="All"))
broken("mpiImplementation: OpenMP (not in the enum)", lambda s: s.update(mpiImplementation="OpenMP"))
broken('nvidia.com/gpu: "eight" (not a quantity)', lambda s: limits(s).update({"nvidia.com/gpu": "eight"}))
ok = copy.deepcopy(job)
limits(ok["spec"])["nvidia.com/gpu"] = "8"
check(not new_errors(ok), 'accepts nvidia.com/gpu: "8" (int-or-string takes a string quantity too)')

print(f"{len(failures)} failure(s)" if failures else "all checks passed")
sys.exit(1 if failures else 0)
