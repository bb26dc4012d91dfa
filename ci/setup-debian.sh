#!/usr/bin/env bash
# Installs what VitalSim's tests and quick start need on Debian 12 (idempotent).
# Swift 6 itself must be on PATH (swift.org toolchain; preinstalled on the project's machines).
# `--system` installs the Debian packages only, `--python` creates the Python virtual environments
# only (ci/test.sh creates them while the build runs); without an argument, both. `--run` installs
# only the Debian packages that building and running vitalsim needs (the quick start): not the
# tests' PostgreSQL, Chromium, wrk and Python.
set -euo pipefail
part="${1:-all}"
case "$part" in all | --system | --python | --run) ;; *)
  echo "usage: ci/setup-debian.sh [--system|--python|--run]" >&2
  exit 2
  ;;
esac

if [ "$part" != --python ]; then

need=()
command -v tshark >/dev/null 2>&1 || need+=(tshark)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
dpkg -s libsqlite3-dev >/dev/null 2>&1 || need+=(libsqlite3-dev)
dpkg -s libbluetooth-dev >/dev/null 2>&1 || need+=(libbluetooth-dev)
dpkg -s libmosquitto-dev >/dev/null 2>&1 || need+=(libmosquitto-dev)
dpkg -s libcurl4-openssl-dev >/dev/null 2>&1 || need+=(libcurl4-openssl-dev)
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
if [ "$part" != --run ]; then
command -v mosquitto_pub >/dev/null 2>&1 || need+=(mosquitto-clients)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
# Headless Chromium renders the HTML report in its test.
[ -x /usr/bin/chromium-headless-shell ] || need+=(chromium-headless-shell)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v python3 >/dev/null 2>&1 || need+=(python3)
python3 -c "import ensurepip, venv" >/dev/null 2>&1 || need+=(python3-venv)
fi

if [ ${#need[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "ci/setup-debian.sh: installing ${need[*]}"
  # Do not ask whether non-root users may capture packets.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if ! command -v swift >/dev/null 2>&1; then
  echo "ci/setup-debian.sh: swift is not on PATH; install a Swift 6 toolchain for Debian 12 from swift.org" >&2
  exit 3
fi
fi
[ "$part" != --system ] && [ "$part" != --run ] || exit 0

# pip installs with --no-compile: this part runs beside the build (ci/test.sh), and byte-compiling
# every module of numpy, scipy, pandas and the rest up front takes CPU the compiler wants; Python
# compiles what is imported when it is first imported.
# bumble (an independent BLE stack: virtual controllers and centrals for the live BLE tests) in a
# project-local virtual environment, pinned to the version the tests were written against.
venv="$(cd "$(dirname "$0")/.." && pwd)/.venv-bumble"
if ! "$venv/bin/python" -c "import bumble" >/dev/null 2>&1; then
  echo "ci/setup-debian.sh: creating $venv with bumble"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --no-compile "bumble==0.0.236"
fi

# sekmet-fhir: a FHIR R4 server nobody here wrote (strict validation, SMART client credentials),
# which the integration tests judge through profiles/fhir-server.yaml (FHIRServerTests).
svenv="$(cd "$(dirname "$0")/.." && pwd)/.venv-sekmet"
if ! "$svenv/bin/python" -c "import importlib.metadata as m; assert m.version('sekmet-fhir') == '0.1.1'" 2>/dev/null; then
  echo "ci/setup-debian.sh: creating $svenv with sekmet-fhir"
  python3 -m venv "$svenv"
  "$svenv/bin/pip" install -q --no-compile "sekmet-fhir==0.1.1"
fi

# fhir.resources 6.5.0 (pydantic 1) in a venv of its own: the independent validator of every FHIR
# body VitalSim sends through the FHIR profiles (ci/fhir-validate.py).
fvenv="$(cd "$(dirname "$0")/.." && pwd)/.venv-fhir"
if ! "$fvenv/bin/python" -c "import importlib.metadata as m; assert m.version('fhir.resources') == '6.5.0'" 2>/dev/null; then
  echo "ci/setup-debian.sh: creating $fvenv with fhir.resources 6.5.0"
  python3 -m venv "$fvenv"
  "$fvenv/bin/pip" install -q --no-compile "fhir.resources==6.5.0" "pydantic==1.10.27"
fi

# schemathesis (checks the live reference SUT against docs/openapi.yaml), junitparser (reads the harness's
# JUnit reports) and fhir.resources (validates FHIR) in the test virtual environment.
tvenv="$(cd "$(dirname "$0")/.." && pwd)/.venv-test"
if ! "$tvenv/bin/schemathesis" --version 2>/dev/null | grep -q "4.32.5"; then
  echo "ci/setup-debian.sh: creating $tvenv with schemathesis"
  python3 -m venv "$tvenv"
  "$tvenv/bin/pip" install -q --no-compile "schemathesis==4.32.5"
fi
"$tvenv/bin/python" -c "import junitparser" 2>/dev/null || "$tvenv/bin/pip" install -q --no-compile "junitparser==3.2.0"
# fhir.resources: an independent FHIR validator of the reference SUT's FHIR search Bundles.
"$tvenv/bin/python" -c "import fhir.resources" 2>/dev/null || "$tvenv/bin/pip" install -q --no-compile "fhir.resources==8.1.0"
# neurokit2: an independent referee of the ECG watch's waveforms (R peaks, heart rate).
"$tvenv/bin/python" -c "import neurokit2" 2>/dev/null || "$tvenv/bin/pip" install -q --no-compile "neurokit2==0.2.13"
# simglucose: an independent referee of CGM sensor noise and meal responses (UVA/Padova S2008 adults).
"$tvenv/bin/python" -c "import simglucose" 2>/dev/null || "$tvenv/bin/pip" install -q --no-compile "simglucose==0.2.11"
# hrv-analysis: an independent referee of heart-rate variability. 1.0.5 with the versions it runs
# on: nolds 0.5.2, numpy < 2.4 (it calls numpy.trapz), pandas < 3 (neurokit2's bound).
"$tvenv/bin/python" -c "import hrvanalysis, numpy; numpy.trapz" 2>/dev/null \
  || "$tvenv/bin/pip" install -q --no-compile "hrv-analysis==1.0.5" "nolds==0.5.2" "numpy<2.4" "pandas<3"
# kubernetes-validate: validates ci/k8s/ against the Kubernetes schema (offline: it ships the schemas).
"$tvenv/bin/python" -c "import kubernetes_validate" 2>/dev/null || "$tvenv/bin/pip" install -q --no-compile "kubernetes-validate==1.37.0"
# opentelemetry-proto: the OpenTelemetry project's protobuf classes, decoding what the OTLP exporter
# sends in the test's receiver (Tests/otlp/otlp_receiver.py).
"$tvenv/bin/python" -c "import opentelemetry.proto" 2>/dev/null || "$tvenv/bin/pip" install -q --no-compile "opentelemetry-proto==1.45.2"
