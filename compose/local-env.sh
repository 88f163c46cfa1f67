#!/usr/bin/env bash
# Prints a .env for `docker compose --profile local up`: fresh random secrets and keys (openssl), and every
# provider pointed at the local profile's stand-ins (mailpit for e-mails; compose/local-stub.mjs for SMS,
# identity, the telecom operators of the demo catalog and the card processor). Production mode still holds:
# nothing here is a development default the API refuses. The stub speaks plain http:// on compose's network,
# which production refuses to any host PLAINTEXT_HOSTS does not list: the .env lists it, next to postgres
# and temporal (docker-compose.yml's default), so that exception is written where it can be read.
#   bash compose/local-env.sh > .env && docker compose --profile local up
set -euo pipefail
hex() { openssl rand -hex "$1"; }
key_dir="$(mktemp -d)"
trap 'rm -rf "$key_dir"' EXIT
# The eSIM provider's callback key: the stub sends none, but production needs a real public key.
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$key_dir/esim.key" 2>/dev/null
esim_public_key="$(openssl pkey -in "$key_dir/esim.key" -pubout | awk '{printf "%s\\n", $0}')"
cat <<ENV
# Written by compose/local-env.sh for the local profile: stand-ins only, never real providers.
POSTGRES_PASSWORD=$(hex 24)
PLAINTEXT_HOSTS=postgres,temporal,stub
PUBLIC_BASE_URL=http://127.0.0.1:3000
JWT_SECRET=$(hex 32)
DATA_ENCRYPTION_KEY=$(openssl rand -base64 32)
DATA_HASH_KEY=$(hex 32)
TEMPORAL_PAYLOAD_KEYS=local:$(openssl rand -base64 32)
PAYMENT_PROVIDER=card_processor
CARD_PROCESSOR_API_KEY=sk_test_local_$(hex 12)
CARD_PROCESSOR_API_BASE_URL=http://stub:4010
CARD_PROCESSOR_WEBHOOK_SECRET=whsec_local_$(hex 24)
ESIM_PROVIDER_PUBLIC_KEY=${esim_public_key}
ESIM_PROVIDER_MERCHANT_ID=local-merchant
EMAIL_PROVIDER=smtp
SMTP_HOST=mailpit
SMTP_PORT=1025
SMTP_FROM=activation-sys <no-reply@activation-sys.local>
SMS_PROVIDER=http
SMS_HTTP_URL=http://stub:4010/sms
IDENTITY_PROVIDER=http
IDENTITY_HTTP_URL=http://stub:4010/identity
OPERATOR_PROVIDER=http
OPERATOR_HTTP_ENDPOINTS=mock:esim=http://stub:4010/operators/mock,mock-noesim=http://stub:4010/operators/mock-noesim
ENV
