# tests/harness/shm.sh: sourced by run-tests and test drivers to find shared-memory
# objects a job left behind. Layer: tests (harness).
# The library names its objects gasnet-<jobid>-<tag>, in /dev/shm or in GASNET_PSHM_DIR;
# other programs' objects are none of our business (the machine may be shared).

# gasnet_shm_list: full paths of the GASNet objects present now, sorted
gasnet_shm_list() {
    local d
    for d in /dev/shm ${GASNET_PSHM_DIR:+"$GASNET_PSHM_DIR"}; do
        [ -d "$d" ] && find "$d" -maxdepth 1 -name 'gasnet-*' 2>/dev/null
    done | sort
}

# gasnet_shm_leaks BEFORE: objects missing from file BEFORE (a gasnet_shm_list) that
# are still there 2 s later (a job's launcher may be removing them); prints them,
# removes them so that one leak is reported once, and returns 1 if there were any.
gasnet_shm_leaks() {
    local new f leaked=""
    new=$(comm -13 "$1" <(gasnet_shm_list))
    [ -z "$new" ] && return 0
    sleep 2
    for f in $new; do [ -e "$f" ] && leaked="$leaked $f"; done
    [ -z "$leaked" ] && return 0
    echo "$leaked"
    rm -f $leaked
    return 1
}
