#!/usr/bin/env python3
"""The content corpus: secrets generated in the providers' published shapes
(random values from a fixed seed, keys made by openssl and ssh-keygen on the
spot: nothing here was ever a credential) and look-alikes that must not be
flagged (published example keys, hashes, UUIDs, lockfile integrity strings,
minified code, placeholders, public keys and certificates).

usage: gen.py OUTDIR
Writes OUTDIR/pos/NNN-CLASS.txt (must be found, as CLASS) and
OUTDIR/neg/NNN-WHAT.txt (must not be found).
"""
import base64
import os
import random
import subprocess
import sys

R = random.Random(20261207)
UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
LO = "abcdefghijklmnopqrstuvwxyz"
DG = "0123456789"
AN = UP + LO + DG
US = AN + "_-"
HX = "0123456789abcdef"
B64 = AN + "+/"
BECH = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def r(chars, n):
    return "".join(R.choice(chars) for _ in range(n))


def uuid():
    h = r(HX, 32)
    return "%s-%s-%s-%s-%s" % (h[:8], h[8:12], h[12:16], h[16:20], h[20:])


def pw():
    return r(AN, 6) + R.choice("!#%+@^") + r(AN, 5) + R.choice(DG)


def b64url(b):
    return base64.urlsafe_b64encode(b).decode().rstrip("=")


def jwt():
    h = b64url(b'{"alg":"HS256","typ":"JWT"}')
    p = b64url(('{"sub":"%s","iat":%d}' % (r(DG, 8), R.randint(1.6e9, 1.8e9))).encode())
    return "%s.%s.%s" % (h, p, b64url(bytes(R.getrandbits(8) for _ in range(32))))


def tool(args, stdin=None):
    try:
        return subprocess.run(args, input=stdin, capture_output=True,
                              timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None


def keys(tmp):
    """PEM and OpenSSH private keys, made now."""
    out = {}
    rsa = tool(["openssl", "genpkey", "-algorithm", "RSA",
                "-pkeyopt", "rsa_keygen_bits:2048"])
    if rsa:
        out["rsa-pkcs8"] = rsa.decode()
        body = "".join(rsa.decode().splitlines()[1:-1])
        out["rsa-body"] = body
        out["rsa-b64"] = base64.b64encode(rsa).decode()
        trad = tool(["openssl", "pkey", "-traditional"], rsa)
        if trad:
            out["rsa-pkcs1"] = trad.decode()
    ec = tool(["openssl", "genpkey", "-algorithm", "EC",
               "-pkeyopt", "ec_paramgen_curve:P-256"])
    if ec:
        out["ec-pkcs8"] = ec.decode()
        pub = tool(["openssl", "pkey", "-pubout"], ec)
        if pub:
            out["neg-ec-public"] = pub.decode()
        cert = tool(["openssl", "req", "-new", "-x509", "-key", "/dev/stdin",
                     "-subj", "/CN=x", "-days", "1"], ec)
        if cert:
            out["neg-certificate"] = cert.decode()
    kf = os.path.join(tmp, "k")
    if tool(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "x", "-f", kf]) is not None:
        with open(kf) as f:
            out["openssh"] = f.read()
        with open(kf + ".pub") as f:
            out["neg-ssh-public"] = f.read()
    return out


def putty():
    pub = base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " +
                           bytes(R.getrandbits(8) for _ in range(32))).decode()
    prv = base64.b64encode(bytes(R.getrandbits(8) for _ in range(36))).decode()
    return ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n"
            "Comment: x\nPublic-Lines: 2\n%s\n%s\nPrivate-Lines: 1\n%s\n"
            "Private-MAC: %s\n" % (pub[:64], pub[64:], prv, r(HX, 64)))


def positives(k):
    p = [
        ("aws-key", "export AWS_ACCESS_KEY_ID=AKIA%s\n" % r(UP + DG, 16)),
        ("aws-key", "aws_secret_access_key = %s\n" % r(B64, 40)),
        ("github-token", "GITHUB_TOKEN=ghp_%s\n" % r(AN, 36)),
        ("github-token", "token: github_pat_11%s_%s\n" % (r(UP + DG, 20), r(AN, 59))),
        ("github-token", "gho_%s" % r(AN, 36)),
        ("gitlab-token", "CI_TOKEN: glpat-%s\n" % r(US, 20)),
        ("slack-token", "SLACK_BOT_TOKEN=xoxb-%s-%s-%s\n" % (r(DG, 12), r(DG, 13), r(AN, 24))),
        ("google-api-key", "const key = 'AIza%s';\n" % r(US, 35)),
        ("google-api-key", '"client_secret": "GOCSPX-%s"\n' % r(US, 28)),
        ("anthropic-key", "ANTHROPIC_API_KEY=sk-ant-api03-%s-%sAA\n" % (r(US, 80), r(US, 12))),
        ("openai-key", "OPENAI_API_KEY=sk-proj-%s\n" % r(US, 120)),
        ("stripe-key", "stripe.api_key = 'sk_live_%s'\n" % r(AN, 24)),
        ("npm-token", "//registry.npmjs.org/:_authToken=npm_%s\n" % r(AN, 36)),
        ("pypi-token", "password = pypi-AgEIcHlwaS5vcmc%s\n" % r(US, 120)),
        ("docker-token", "DOCKER_PAT=dckr_pat_%s\n" % r(US, 27)),
        ("huggingface-token", "HF_TOKEN=hf_%s\n" % r(AN, 34)),
        ("digitalocean-token", "DO_TOKEN=dop_v1_%s\n" % r(HX, 64)),
        ("azure-key", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=%s==;EndpointSuffix=core.windows.net\n" % r(B64, 86)),
        ("sendgrid-key", "SENDGRID_API_KEY=SG.%s.%s\n" % (r(US, 22), r(US, 43))),
        ("twilio-key", "TWILIO_API_KEY=SK%s\n" % r(HX, 32)),
        ("twilio-key", "TWILIO_AUTH_TOKEN=%s\n" % r(HX, 32)),
        ("mailgun-key", "MAILGUN_API_KEY=key-%s\n" % r(HX, 32)),
        ("datadog-key", "DD_API_KEY=%s\n" % r(HX, 32)),
        ("datadog-key", "datadog_app_key: %s\n" % r(HX, 40)),
        ("shopify-token", "SHOPIFY_ACCESS_TOKEN=shpat_%s\n" % r(HX, 32)),
        ("telegram-token", "BOT_TOKEN=%s:AA%s\n" % (r(DG, 10), r(US, 33))),
        ("vault-token", "VAULT_TOKEN=hvs.%s\n" % r(US, 90)),
        ("age-key", "# created: 2026-01-01\nAGE-SECRET-KEY-1%s\n" % r(BECH, 58)),
        ("heroku-key", "HEROKU_API_KEY=%s\n" % uuid()),
        ("heroku-key", "heroku: HRKU-%s\n" % r(US, 60)),
        ("webhook-url", "url = https://hooks.slack.com/services/T%s/B%s/%s\n" % (r(UP + DG, 8), r(UP + DG, 10), r(AN, 24))),
        ("webhook-url", "https://discord.com/api/webhooks/%s/%s\n" % (r(DG, 18), r(US, 68))),
        ("credential-url", "DATABASE_URL=postgres://app:%s@db.internal:5432/prod\n" % pw()),
        ("credential-url", "curl https://deploy:%s@ci.example.org/hook\n" % pw()),
        ("credential-url", "MONGO_URI=mongodb+srv://svc:%s@cluster0.abcde.mongodb.net/db\n" % pw()),
        ("password", "DB_PASSWORD=%s\n" % pw()),
        ("password", "database:\n  user: app\n  password: \"%s\"\n" % pw()),
        ("npm-token", "_auth=%s\n" % base64.b64encode(("me:" + pw()).encode()).decode()),
        ("npm-token", "//npm.corp.example/:_password=%s\n" % base64.b64encode(pw().encode()).decode()),
        ("jwt", "Authorization: Bearer %s\n" % jwt()),
        ("generic-secret", 'api_key = "%s"\n' % r(AN, 32)),
        ("generic-secret", "CLIENT_SECRET=%s\n" % r(US, 40)),
        ("private-key", putty()),
        ("other-token", "LINEAR_API_KEY=lin_api_%s\n" % r(AN, 40)),
        ("other-token", "SENTRY_AUTH_TOKEN=sntrys_%s\n" % r(B64, 120)),
        ("password", "machine api.example.net\n  login me\n  password %s\n" % pw()),
        ("password", "<datasource><password>%s</password></datasource>\n" % pw()),
        ("password", "Server=tcp:db;Database=app;User Id=app;Password=%s;\n" % pw()),
        ("mailgun-key", "MAILGUN_KEY=%s-%s-%s\n" % (r(HX, 32), r(HX, 8), r(HX, 8))),
        ("telegram-token", "curl https://api.telegram.org/bot%s:AA%s/getMe\n" % (r(DG, 9), r(US, 33))),
        ("azure-key", "AZURE_CLIENT_SECRET=%s%sQ~%s\n" % (r(AN, 3), r(DG, 1), r(US + "~.", 34))),
        ("google-api-key", "Authorization: Bearer ya29.%s\n" % r(US, 150)),
        ("credential-url", "REDIS_URL=redis://:%s@cache.internal:6379/0\n" % pw()),
        ("webhook-url", "https://discordapp.com/api/webhooks/%s/%s\n" % (r(DG, 19), r(US, 68))),
        ("generic-secret", '{"apiToken": "%s"}\n' % r(AN + "-_", 48)),
    ]
    for name in ("rsa-pkcs8", "rsa-pkcs1", "ec-pkcs8", "openssh", "rsa-b64"):
        if name in k:
            p.append(("private-key", "key: |\n" + k[name] if name == "rsa-b64" else k[name]))
    if "rsa-body" in k:
        p.append(("private-key", "PRIVATE_KEY_BODY=%s\n" % k["rsa-body"]))
    return p


def negatives(k):
    n = [
        ("aws-example", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"),
        ("jwt-io-example", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c\n"),
        ("git-sha1", "commit %s\nMerge: %s %s\n" % (r(HX, 40), r(HX, 7), r(HX, 7))),
        ("sha256sum", "%s  dist/app.tar.gz\n" % r(HX, 64)),
        ("md5", "md5 = \"%s\"\n" % r(HX, 32)),
        ("uuids", "request_id: %s\ntrace_id = \"%s\"\n" % (uuid(), uuid())),
        ("package-lock", '"integrity": "sha512-%s==",\n"resolved": "https://registry.npmjs.org/x/-/x-1.0.0.tgz"\n' % r(B64, 86)),
        ("yarn-lock", "  integrity sha1-%s=\n" % r(B64, 27)),
        ("go-sum", "golang.org/x/text v0.3.7 h1:%s=\n" % r(B64, 43)),
        ("pip-hash", "requests==2.31.0 --hash=sha256:%s\n" % r(HX, 64)),
        ("sri", '<script src="x.js" integrity="sha384-%s" crossorigin="anonymous"></script>\n' % r(B64, 64)),
        ("docker-digest", "FROM node@sha256:%s\n" % r(HX, 64)),
        ("minified-js", "!function(e,t){var n=e.token||\"\",r=t.secret||n;e.apiKey=function(){return r+n};for(var i=0;i<t.length;i++)e[i]=t[i]}(window,{});var a=\"0123456789abcdefABCDEF\".split(\"\");\n"),
        ("data-uri", "background: url(data:image/png;base64,%s);\n" % r(B64, 400)),
        ("env-reference", "password = os.environ['DB_PASSWORD']\ntoken: ${{ secrets.GITHUB_TOKEN }}\nsecret: ${API_SECRET}\n"),
        ("placeholders", 'api_key = "YOUR_API_KEY"\nOPENAI_API_KEY=sk-your-key-here\nGITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n'),
        ("db-placeholder", "DATABASE_URL=postgres://user:password@localhost:5432/db\nREDIS_URL=redis://localhost:6379\npostgres://postgres:postgres@localhost/test\n"),
        ("url-no-password", "git clone https://user@github.com/org/repo.git\ngit@github.com:org/repo.git\n"),
        ("code-names", "tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased')\nmax_tokens = 4096\nsecret_name = 'prod/db/password'\ntoken = get_token()\n"),
        ("password-policy", "PASSWORD_MIN_LENGTH = 12\npassword_hash = bcrypt.hashpw(p, salt)\npassword: str\n"),
        ("webhook-placeholder", "SLACK_WEBHOOK=https://hooks.slack.com/services/XXX/YYY/ZZZ\n"),
        ("jwt-header-only", "The header eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9 is base64 JSON.\n"),
        ("npmrc-env", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n"),
        ("hex-colors", "colors = ['#%s', '#%s', '#%s']\n" % (r(HX, 6), r(HX, 6), r(HX, 6))),
        ("lorem", "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n"),
        ("base64-text", "payload: %s\n" % base64.b64encode(b"hello world, this is not a key at all; just text." * 3).decode()),
        ("cargo-lock", 'checksum = "%s"\n' % r(HX, 64)),
        ("semver-and-ids", '"version": "1.2.3", "id": %d, "sha": "%s"\n' % (R.randint(1, 10**9), r(HX, 40))),
        ("short-prefixes", "AIzaSy is Google's prefix; sk-learn is a package; xoxb-your-token\n"),
        ("solidity-hex", "bytes32 constant SALT = 0x%s;\n" % r(HX, 64)),
        ("docs-tokens", "GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a\nSLACK_WEBHOOK=https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX\n"),
        ("stripe-test-and-publishable", "STRIPE_KEY=sk_test_%s\nSTRIPE_PK=pk_live_%s\n" % (r(AN, 24), r(AN, 24))),
        ("masked-password", 'password: "********"\nPASSWORD=\npassword = "hunter2"\n'),
        ("css-minified", ".a{color:#%s}.b:hover{background:url(x.png)}@media(max-width:600px){.c{display:none}}\n" % r(HX, 6)),
        ("k8s-secret-ref", "env:\n- name: PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}\n"),
    ]
    for name in ("neg-ec-public", "neg-certificate", "neg-ssh-public"):
        if name in k:
            n.append((name[4:], k[name]))
    return n


def main():
    out = sys.argv[1]
    os.makedirs(os.path.join(out, "pos"), exist_ok=True)
    os.makedirs(os.path.join(out, "neg"), exist_ok=True)
    k = keys(out)
    for i, (cls, text) in enumerate(positives(k)):
        with open(os.path.join(out, "pos", "%03d-%s.txt" % (i, cls)), "w") as f:
            f.write(text)
    for i, (what, text) in enumerate(negatives(k)):
        with open(os.path.join(out, "neg", "%03d-%s.txt" % (i, what)), "w") as f:
            f.write(text)


main()
