# tools/install-deps.sh (the README's first command and .ci/run) in its
# dry-run mode, under a PATH of stubs: as root without sudo it runs apt-get
# itself; as a user it goes through sudo, or says it needs one of the two;
# an existing npm keeps Debian's nodejs and npm out of the install.
# fak-test: once
set -u
bin=$PWD/bin
mkdir -p "$bin"
for t in sh cat dirname; do
	ln -sf "$(command -v $t)" "$bin/$t" || exit 1
done
stub() {	# stub NAME OUTPUT: a command that prints OUTPUT
	printf '#!/bin/sh\necho %s\n' "$2" >"$bin/$1"
	chmod +x "$bin/$1"
}
deps() {	# deps: run the script with only the stubs on PATH
	PATH=$bin sh "$ROOT/tools/install-deps.sh" --dry-run >out 2>err
}
fail() {
	echo "$1"
	cat out err
	exit 1
}
pkgs=$(cat "$ROOT/tools/packages.txt" | tr '\n' ' ')

# root, no sudo, no npm
stub id 0
deps || fail "root without sudo failed"
cat >want <<WANT
env DEBIAN_FRONTEND=noninteractive apt-get update -qq
env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${pkgs}nodejs npm
npm install --prefix tests/node --no-audit --no-fund --loglevel=error
WANT
cmp -s out want || { diff want out; fail "root without sudo: wrong commands"; }

# a user with sudo
stub id 1000
stub sudo sudo
deps || fail "user with sudo failed"
grep -c '^sudo env DEBIAN_FRONTEND=noninteractive apt-get ' out | grep -qx 2 || fail "user: apt-get not through sudo"
grep -q '^npm install --prefix tests/node' out || fail "user: npm install missing (or under sudo)"

# a user without sudo: a clear refusal, nothing run
rm "$bin/sudo"
deps && fail "user without sudo succeeded"
grep -qx 'install-deps: apt-get needs root: run this as root, or install sudo' err ||
	fail "user without sudo: wrong message"
[ ! -s out ] || fail "user without sudo: commands were printed"

# root with a Node.js that has npm (NodeSource, nvm): no Debian nodejs/npm
stub id 0
stub npm npm
deps || fail "root with npm failed"
cat >want <<WANT
env DEBIAN_FRONTEND=noninteractive apt-get update -qq
env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${pkgs% }
npm install --prefix tests/node --no-audit --no-fund --loglevel=error
WANT
cmp -s out want || { diff want out; fail "root with npm: wrong commands"; }
exit 0
