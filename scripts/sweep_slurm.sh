#!/bin/sh
# Runs a geotrain sweep on a Slurm cluster as a job array: task i of N runs shard i/N, then one
# merge job (afterok: only when every shard succeeded) joins them.
#   scripts/sweep_slurm.sh SPEC N OUT [sbatch options...]
# OUT/shards/<i>/ holds each shard's results, OUT/ the merged sweep.csv, sweep.json and map.
# Run it from the repository (jobs start there: --chdir); OUT must be on a shared filesystem.
# GEOTRAIN names the binary (default ./build/geotrain), SBATCH the client (default sbatch).
# Each task simulates with as many processes as Slurm gives it CPUs (--cpus-per-task).
# Prints the array job id and the merge job id.
set -eu
if [ $# -lt 3 ]; then
  echo "usage: $0 SPEC N OUT [sbatch options...]" >&2
  exit 2
fi
spec=$1 n=$2 out=$3
shift 3
case $n in '' | *[!0-9]* | 0) echo "$0: N = '$n': expected a positive number of tasks" >&2; exit 2 ;; esac
geotrain=${GEOTRAIN:-$(pwd)/build/geotrain}
sbatch=${SBATCH:-sbatch}
[ -x "$geotrain" ] || { echo "$0: $geotrain: not an executable (set GEOTRAIN)" >&2; exit 2; }
[ -f "$spec" ] || { echo "$0: $spec: no such sweep spec" >&2; exit 2; }
mkdir -p "$out/shards"

# Single quotes: $SLURM_ARRAY_TASK_ID and $SLURM_CPUS_PER_TASK expand inside the job.
array=$("$sbatch" --parsable --array="1-$n" --job-name=geotrain-sweep --chdir="$(pwd)" \
  --output="$out/shards/slurm-%a.log" "$@" \
  --wrap="'$geotrain' sweep '$spec' --no-plot --shard \$SLURM_ARRAY_TASK_ID/$n --jobs \${SLURM_CPUS_PER_TASK:-1} --out '$out/shards/'\$SLURM_ARRAY_TASK_ID")
array=${array%%;*}

dirs=""
i=1
while [ "$i" -le "$n" ]; do
  dirs="$dirs '$out/shards/$i'"
  i=$((i + 1))
done
merge=$("$sbatch" --parsable --dependency="afterok:$array" --job-name=geotrain-sweep-merge \
  --chdir="$(pwd)" --output="$out/slurm-merge.log" "$@" \
  --wrap="'$geotrain' sweep --merge $dirs --out '$out'")
merge=${merge%%;*}
echo "array job $array ($n tasks), merge job $merge; results in $out"
