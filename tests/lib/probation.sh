# shellcheck shell=bash
# Helpers for path probation (the flaky family): the status's probation
# section, the debugfs record, the event counter.

# probation_of MAP DEV: "<failures> <stalls> <window> <clean> <needed>" of
# DEV from MAP's INFO status (the "probation" words of the feature
# section); empty if DEV is not on probation. Returns 2 if the feature
# section's count does not cover exactly its words (what multipathd skips).
probation_of() {
	local f i end n
	read -ra f <<<"$(dmsetup status "$1")" || return 1
	end=$((4 + f[3]))		# first word after the feature section
	i=5				# past the queue size
	[ "${f[i]}" != no_path ] || i=$((i + 3))
	if [ "${f[i]}" = probation ]; then
		n=${f[i + 1]}
		i=$((i + 2))
		for (( ; n > 0; n--, i += 6)); do
			[ "${f[i]}" != "$2" ] || echo "${f[*]:i+1:5}"
		done
	fi
	[ "$i" -eq "$end" ] || return 2
}
# on_probation MAP DEV: true if DEV is on probation
on_probation() { [ -n "$(probation_of "$1" "$2")" ]; }
# nr_on_probation MAP: how many paths the status lists on probation
nr_on_probation() {
	local f
	read -ra f <<<"$(dmsetup status "$1")" || return 1
	if [ "${f[5]}" = probation ]; then echo "${f[6]}"
	elif [ "${f[8]}" = probation ]; then echo "${f[9]}"
	else echo 0; fi
}
# map_devnum MAP: MAJ:MIN of the map (its debugfs file's name)
map_devnum() { dmsetup info -c --noheadings -o major,minor --separator : "$1"; }
# path_stat MAP DEV KEY: KEY's value on DEV's line of MAP's debugfs record
path_stat() {
	sed -n "s/.* dev=$2 .*\<$3=\([^ ]*\).*/\1/p" \
		"/sys/kernel/debug/dm-multipath/$(map_devnum "$1")"
}
# map_events MAP: the map's dm event counter
map_events() { dmsetup info -c --noheadings -o events "$1" | tr -d ' '; }
# direct_reads MAP COUNT: COUNT direct 4 KiB reads through MAP
direct_reads() {
	dd if="/dev/mapper/$1" of=/dev/null bs=4k count="$2" iflag=direct status=none
}
# reads_until_off_probation MAP DEV BATCHES: batches of 1000 direct reads,
# at most BATCHES, until DEV is off probation; READS_DONE is how many reads
# that took (or BATCHES x 1000), and DEV's debugfs record is logged.
reads_until_off_probation() {
	local k
	for ((k = 1; k <= $3; k++)); do
		direct_reads "$1" 1000 || break
		on_probation "$1" "$2" || break
	done
	READS_DONE=$(((k > $3 ? $3 : k) * 1000))
	diag "$(grep "dev=$2 " "/sys/kernel/debug/dm-multipath/$(map_devnum "$1")")"
}
# fail_reinstate MAP DEV N: N times fail_path and reinstate_path DEV
fail_reinstate() {
	local k
	for ((k = 0; k < $3; k++)); do
		dmsetup message "$1" 0 fail_path "$2" &&
			dmsetup message "$1" 0 reinstate_path "$2" || return 1
	done
}
