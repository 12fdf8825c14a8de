#!/usr/bin/env bash
# The apparel mockup API with curl (and jq, openssl): upload, analyze, generate synchronously and asynchronously with
# polling, a batch, list with cursors; and verify a received callback's signature.
#
#   MOCKUP_BASE_URL=https://mockups.example.com MOCKUP_API_KEY=amk_test_… MOCKUP_DESIGN=logo.png examples/curl.sh
#       optional MOCKUP_WEBHOOK_URL=https://you.example.com/hooks: one generation is sent with it
#   examples/curl.sh verify <raw body file> '<X-Mockup-Signature header>' whsec_…
#       exit 0 when the signature is valid (docs/webhooks.md, "Verifying the signature")
#
# Use a test key (amk_test_…) and nothing is charged. Prints one JSON line per step.
set -euo pipefail

verify() {
  local body_file=$1 header=$2 secret=$3 t now expected sig
  t=$(tr ',' '\n' <<<"$header" | sed -n 's/^ *t=\([0-9]\{1,12\}\) *$/\1/p' | head -n1)
  [[ -n $t ]] || { echo 'malformed header' >&2; return 1; }
  now=$(date +%s)
  ((now - t <= 300 && t - now <= 300)) || { echo 'timestamp out of tolerance' >&2; return 1; }
  # HMAC-SHA256 keyed with the whole secret over "<t>.<raw body>", lowercase hex
  expected=$({ printf '%s.' "$t"; cat "$body_file"; } | openssl dgst -sha256 -hmac "$secret" -r | cut -d' ' -f1)
  for sig in $(tr ',' '\n' <<<"$header" | sed -n 's/^ *v1=\([0-9a-f]\{64\}\) *$/\1/p'); do
    # (a shell comparison is not constant-time: fine for checking by hand; servers use the recipe's timingSafeEqual)
    [[ $sig == "$expected" ]] && { echo 'valid'; return 0; }
  done
  echo 'no matching signature' >&2
  return 1
}

if [[ ${1:-} == verify ]]; then
  [[ $# -eq 4 ]] || { echo "usage: $0 verify <body file> <signature header> <secret>" >&2; exit 2; }
  verify "$2" "$3" "$4"
  exit $?
fi

BASE=${MOCKUP_BASE_URL:-http://localhost:3000}
BASE=${BASE%/}
: "${MOCKUP_API_KEY:?set MOCKUP_API_KEY}" "${MOCKUP_DESIGN:?set MOCKUP_DESIGN (a PNG file)}"

# One call: the key, errors shown with their envelope (curl fails on 4xx/5xx and prints the body).
api() {
  curl -sS --fail-with-body -H "Authorization: Bearer $MOCKUP_API_KEY" "$@"
}
# Writes carry an Idempotency-Key: the same request again with the same key is safe (no second charge).
idem() { printf 'Idempotency-Key: %s' "$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"; }
step() { jq -c --arg step "$1" '{step: $step} + .'; }

# 1. Upload the design (multipart part "file").
upload=$(api -H "$(idem)" -F "file=@${MOCKUP_DESIGN};type=image/png" "$BASE/api/v1/upload")
design_url=$(jq -r .url <<<"$upload")
jq '{id, url, width: .dimensions.width}' <<<"$upload" | step upload

# 2. Analyze it.
api -H 'Content-Type: application/json' -d "$(jq -n --arg u "$design_url" '{imageUrl: $u, quantity: 100}')" \
  "$BASE/api/v1/analyze" | jq '{colors: .colors.count, technique: .recommendation.technique}' | step analyze

# 3. A garment and its blank.
garment=$(api "$BASE/api/v1/garments?category=t-shirts&limit=1" | jq '.garments[0]')
garment_id=$(jq -r .id <<<"$garment")
body=$(jq -n --arg d "$design_url" --argjson g "$garment" \
  '{designUrl: $d, garmentId: $g.id, garmentImageUrl: $g.colors[0].imageUrl}')

# 4. Generate synchronously: the finished generation (200), or 202 when it took too long.
api -H 'Content-Type: application/json' -H "$(idem)" -d "$body" "$BASE/api/v1/generate" |
  jq '{id, status, mockupUrl, livemode}' | step generate

# 5. Generate asynchronously (Prefer: respond-async: 202 at once) and poll until finished.
accepted=$(api -H 'Content-Type: application/json' -H "$(idem)" -H 'Prefer: respond-async' -d "$body" "$BASE/api/v1/generate")
id=$(jq -r .id <<<"$accepted")
while :; do
  g=$(api "$BASE/api/v1/generations/$id")
  status=$(jq -r .status <<<"$g")
  [[ $status == completed || $status == failed ]] && break
  sleep 0.5
done
jq --arg a "$(jq -r .status <<<"$accepted")" '{id, acceptedStatus: $a, status}' <<<"$g" | step generate-async

# 6. A batch: the design on two colors.
batch_body=$(jq -n --arg d "$design_url" --argjson g "$garment" \
  '{designUrl: $d, garmentId: $g.id, items: [$g.colors[0:2][] | {color: .name}]}')
api -H 'Content-Type: application/json' -H "$(idem)" -d "$batch_body" "$BASE/api/v1/generate/batch" |
  jq '{batchId, ids: [.generations[].id], statuses: [.generations[].status]}' | step batch

# 7. List every generation, two per page, following nextCursor.
ids='[]'
cursor=''
while :; do
  page=$(api -G "$BASE/api/v1/generations" --data-urlencode 'limit=2' ${cursor:+--data-urlencode "cursor=$cursor"})
  ids=$(jq -c --argjson acc "$ids" '$acc + [.generations[].id]' <<<"$page")
  [[ $(jq -r .pagination.hasMore <<<"$page") == true ]] || break
  cursor=$(jq -r .pagination.nextCursor <<<"$page")
done
jq -n --argjson ids "$ids" '{count: ($ids | length), ids: $ids}' | step list

# 8. Optionally, one generation with a callback (verify it on receipt with: examples/curl.sh verify …).
if [[ -n ${MOCKUP_WEBHOOK_URL:-} ]]; then
  api -H 'Content-Type: application/json' -H "$(idem)" \
    -d "$(jq --arg w "$MOCKUP_WEBHOOK_URL" '. + {webhookUrl: $w}' <<<"$body")" "$BASE/api/v1/generate" |
    jq '{id, status}' | step callback-requested
fi
jq -n '{ok: true}' | step done
