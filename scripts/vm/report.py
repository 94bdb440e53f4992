#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Host-side judge of guest runs: TAP counting and kernel log checks.

    report.py tap-counts < TAP            print "passed failed skipped"
    report.py dmesg FILE                  print kernel reports; exit 1 if any
    report.py budget MANIFEST [SUITE...]  seconds the suites may take in all
    report.py results --kernel K --rundir DIR --manifest FILE --qemu-rc RC
                      [SUITE...]          judge one guest's test run; the last
                                          line is "passed failed skipped"

The KTAP document of `./scripts/uvm test` (one top-level test per suite of
each kernel, plus one per kernel for its boot log and kmemleak):

    report.py suite --kernel K --rundir DIR --manifest FILE --number N NAME
                      judge suite NAME as soon as the guest finished it:
                      print its KTAP result line "ok N K.NAME" (diagnostics
                      before it), append "NAME passed failed skipped" to
                      DIR/results
    report.py rest --kernel K --rundir DIR --manifest FILE --qemu-rc RC
                   --first N [SUITE...]
                      after the guest: result lines for the suites it never
                      finished, then "K.kernel" (boot log, kmemleak, the
                      guest finished); the last line is "passed failed
                      skipped" of the whole kernel (test cases)
    report.py digest < KTAP   every failure of a finished document again,
                              briefly (for logs of which only the end is
                              kept): the suites' problems and the failing
                              test cases with their last diagnostics

Counting: every top-level "ok N" / "not ok N" line of a suite's (K)TAP is a
test case; "# SKIP" marks a skip, "# TODO"/"# XFAIL" count as passed. On top
of the cases the suite reports, each of these adds one failure: test cases
missing from the plan, an exit status other than 0 (or 4, "skip") without a
failing case, a per-suite timeout, insmod failing, rmmod failing after the
suite, a kernel report in the suite's dmesg, the guest dying during the suite,
kmemleak listing objects after all suites, a kernel report during boot.
"""

import os
import re
import sys

# Lines that start a kernel report (checked after each suite).
REPORT_PATTERNS = [
    r'WARNING:', r'BUG:', r'\bOops\b', r'kernel BUG at', r'KASAN', r'UBSAN',
    r'general protection fault', r'Unable to handle',
    r'possible circular locking dependency', r'inconsistent lock state',
    r'possible recursive locking', r'suspicious RCU usage',
    r'bad unlock balance', r'held lock freed', r'lock held when returning',
    r'circular locking', r'kmemleak: \d+ new suspected',
    r'unreferenced object', r'INFO: task .* blocked for more than',
    r'soft lockup', r'hard LOCKUP', r'rcu: INFO: .*stall',
    r'detected stall', r'list_(add|del) corruption', r'refcount_t: ',
    r'ODEBUG:', r'stack-protector', r'stack guard page', r'double free',
    r'use-after-free', r'Kernel panic', r'kernel stack overflow',
    r'Call Trace:',
]
REPORT_RE = re.compile('|'.join(REPORT_PATTERNS))
# Benign lines that would match the above.
BENIGN_RE = re.compile(
    r'kmemleak: Kernel memory leak detector|kmemleak: Automatic memory scanning'
    r'|lockdep: fixing up alternatives|Lock dependency validator'
    r'|KASAN: (initialized|.*Generic)|kasan: KernelAddressSanitizer initialized'
    r'|UBSAN: .*disabled|taints kernel|RCU callback double-/use-after-free debug')
FAULT_INJECTION_RE = re.compile(r'FAULT_INJECTION: forcing a failure')
TS_RE = re.compile(r'^\[\s*\d+\.\d+\]\s?')


def dmesg_reports(text):
    """Return the report lines of a kernel log, each splat with context."""
    lines = [TS_RE.sub('', line) for line in text.splitlines()]
    injected = any(FAULT_INJECTION_RE.search(line) for line in lines)
    found = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if REPORT_RE.search(line) and not BENIGN_RE.search(line):
            if line.strip() == 'Call Trace:':
                # a dump_stack() after an injected fault or an allocation
                # failure it caused is expected, not a report
                before = ' '.join(lines[max(0, i - 12):i])
                if FAULT_INJECTION_RE.search(before) or \
                        (injected and 'page allocation failure' in before):
                    i += 1
                    continue
            found.append(line)
            # keep the splat's next lines for context, up to 25
            j = i + 1
            while j < len(lines) and j < i + 25 and \
                    not lines[j].startswith('---[ end trace'):
                found.append('    ' + lines[j])
                j += 1
            i = j
            continue
        i += 1
    return found


def tap_counts(text):
    """Count top-level TAP results: (passed, failed, skipped, planned)."""
    passed = failed = skipped = 0
    planned = None
    for line in text.splitlines():
        line = line.rstrip('\r')
        m = re.match(r'^1\.\.(\d+)', line)
        if m and planned is None:
            planned = int(m.group(1))
            continue
        m = re.match(r'^(not ok|ok)\b(.*)$', line)
        if m:
            directive = ''
            if '#' in m.group(2):
                directive = m.group(2).split('#', 1)[1].strip().upper()
            if directive.startswith('SKIP'):
                skipped += 1
            elif m.group(1) == 'ok' or directive.startswith(('TODO', 'XFAIL')):
                passed += 1
            else:
                failed += 1
        elif line.startswith('Bail out!'):
            failed += 1
    return passed, failed, skipped, planned


def read(path, default=''):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return default


def manifest_suites(path, wanted):
    suites = []
    for line in read(path).splitlines():
        if not line.strip() or line.startswith('#'):
            continue
        fields = line.split('\t')
        while len(fields) < 4:
            fields.append('')
        name, timeout, exe, params = fields[:4]
        if wanted and name not in wanted:
            continue
        suites.append((name, int(timeout or 60), exe, params))
    return suites


def console_section(console, name):
    """Kernel lines of the console from suite NAME's start to its end."""
    out = []
    inside = False
    for line in console.splitlines():
        if '@@uvm-phase@@ suite:' in line:
            inside = line.split('suite:', 1)[1].split()[0] == name
            continue
        if '@@uvm-phase@@' in line:
            inside = False
        if inside and TS_RE.match(line):
            out.append(line)
    return '\n'.join(out)


def judge_suite(d, timeout, died, console=''):
    """Judge one suite directory. Returns (passed, failed, skipped, problems)."""
    if not os.path.isdir(d):
        return 0, 1, 0, ['not run: the guest %s before it' % died]
    problems = []
    p, f, s, planned = tap_counts(read(os.path.join(d, 'output')))
    extra = 0
    if read(os.path.join(d, 'insmod.rc')).strip() == '1':
        why = read(os.path.join(d, 'insmod.txt')).strip()
        if 'File exists' in why:
            why += ' (uvm.ko is still loaded: an earlier rmmod failed)'
        problems.append('insmod uvm.ko failed, suite not run: ' + why)
        return p, f + 1, s, problems
    rc_text = read(os.path.join(d, 'rc')).strip()
    rc = int(rc_text) if rc_text.lstrip('-').isdigit() else None
    abnormal = None
    if not os.path.exists(os.path.join(d, 'done')):
        abnormal = 'the guest %s while this suite was running' % died
    elif rc in (124, 137):
        abnormal = 'timed out after %ds (killed in the guest)' % timeout
    elif rc in (4, 77) and p + f + s == 0:
        s += 1
    elif rc is not None and rc not in (0, 4, 77) and f == 0:
        abnormal = 'exited with status %d without a failing test case' % rc
    missing = 0
    if planned is not None and rc not in (4, 77):
        missing = max(0, planned - (p + f + s))
    if abnormal or missing:
        # the cases that never reported did not pass: each counts as failed
        extra = max(1 if abnormal else 0, missing)
        msg = abnormal or 'ended early'
        if missing:
            msg += '; %d of %d planned test cases did not report' % (missing, planned)
        problems.append(msg)
    strays = read(os.path.join(d, 'strays')).strip()
    if strays:
        problems.append('left processes running (killed before rmmod):\n  ' +
                        strays.replace('\n', '\n  '))
        extra += 1
    if read(os.path.join(d, 'rmmod.rc')).strip() == '1':
        problems.append('rmmod uvm failed after the suite (leaked reference?): ' +
                        read(os.path.join(d, 'rmmod.txt')).strip())
        extra += 1
    if os.path.exists(os.path.join(d, 'dmesg')):
        reports = dmesg_reports(read(os.path.join(d, 'dmesg')))
        where = ''
    else:
        # the guest never got to save dmesg: use what reached the console
        reports = dmesg_reports(console_section(console, os.path.basename(d).split('-', 1)[1]))
        where = ' (from the console)'
    if reports:
        problems.append('kernel log reports%s:\n  ' % where + '\n  '.join(reports[:80]))
        extra += 1
    return p, f + extra, s, problems


def kmemleak_since(report, start):
    """The objects of a kmemleak report allocated at or after jiffies START."""
    if not start.isdigit():
        return report.strip()
    keep = []
    for obj in re.split(r'(?m)^(?=unreferenced object)', report):
        m = re.search(r'jiffies (\d+)', obj)
        if obj.strip() and (not m or int(m.group(1)) >= int(start)):
            keep.append(obj)
    return ''.join(keep).strip()


def cmd_results(args):
    kernel = rundir = manifest = None
    qemu_rc = 0
    wanted = []
    while args:
        a = args.pop(0)
        if a == '--kernel':
            kernel = args.pop(0)
        elif a == '--rundir':
            rundir = args.pop(0)
        elif a == '--manifest':
            manifest = args.pop(0)
        elif a == '--qemu-rc':
            qemu_rc = int(args.pop(0) or 0)
        else:
            wanted.append(a)
    out = os.path.join(rundir, 'out')
    finished = os.path.exists(os.path.join(out, 'finished'))
    died = 'hung and was killed' if qemu_rc in (124, 137) else 'died'
    total = [0, 0, 0]
    lines = []

    boot = dmesg_reports(read(os.path.join(out, 'dmesg-boot.txt')))
    if boot:
        lines.append('# %s: FAIL boot: kernel log reports before the first suite:' % kernel)
        lines += ['#     ' + r for r in boot[:60]]
        total[1] += 1
    if not os.path.exists(os.path.join(out, 'dmesg-boot.txt')):
        lines.append('# %s: FAIL the guest %s before running any suite; console log: %s'
                     % (kernel, died, os.path.join(rundir, 'console.log')))
        total[1] += 1

    dirs = {}
    sdir = os.path.join(out, 'suites')
    if os.path.isdir(sdir):
        for e in os.listdir(sdir):
            dirs[e.split('-', 1)[1]] = os.path.join(sdir, e)
    for name, timeout, _exe, params in manifest_suites(manifest, wanted):
        if name not in dirs and not os.path.exists(os.path.join(out, 'dmesg-boot.txt')):
            total[1] += 1
            continue
        p, f, s, problems = judge_suite(dirs.get(name, '/nonexistent'), timeout, died,
                                        read(os.path.join(rundir, 'console.log')))
        total[0] += p
        total[1] += f
        total[2] += s
        verdict = 'FAIL' if f else 'ok'
        lines.append('# %s: %s suite %s: %d passed, %d failed, %d skipped'
                     % (kernel, verdict, name, p, f, s))
        for prob in problems:
            lines.append('#     ' + prob.replace('\n', '\n#     '))

    km = kmemleak_since(read(os.path.join(out, 'kmemleak.txt')),
                        read(os.path.join(out, 'kmemleak-start-jiffies')).strip())
    if km:
        n = km.count('unreferenced object')
        lines.append('# %s: FAIL kmemleak lists %d unreferenced objects after the suites '
                     '(all in %s); the first:' % (kernel, n, os.path.join(out, 'kmemleak.txt')))
        lines += ['#     ' + line for line in km.splitlines()[:40]]
        total[1] += 1
    km_dmesg = dmesg_reports(read(os.path.join(out, 'dmesg-kmemleak.txt')))
    if km_dmesg and not km:
        lines.append('# %s: FAIL kernel log reports during the final kmemleak scan:' % kernel)
        lines += ['#     ' + r for r in km_dmesg[:40]]
        total[1] += 1
    if not finished:
        cur = read(os.path.join(out, 'current')).strip()
        lines.append('# %s: the guest %s%s; console log: %s'
                     % (kernel, died, (' in suite ' + cur) if cur else '',
                        os.path.join(rundir, 'console.log')))
    print('\n'.join(lines))
    print('%d %d %d' % tuple(total))


def parse_opts(args, names):
    """Split --name VALUE options (of NAMES) from positional arguments."""
    opts = {n: None for n in names}
    rest = []
    while args:
        a = args.pop(0)
        if a.startswith('--') and a[2:].replace('-', '_') in opts:
            opts[a[2:].replace('-', '_')] = args.pop(0)
        else:
            rest.append(a)
    return opts, rest


def suite_line(number, kernel, name, p, f, s, problems, out):
    """Print one suite's KTAP result line, its counts and problems first."""
    out.append('  # %s.%s: %d passed, %d failed, %d skipped' % (kernel, name, p, f, s))
    for prob in problems:
        out.append('  #   ' + prob.replace('\n', '\n  #   '))
    if f:
        out.append('not ok %d %s.%s' % (number, kernel, name))
    elif s and not p:
        out.append('ok %d %s.%s # SKIP all %d test cases skipped' % (number, kernel, name, s))
    else:
        out.append('ok %d %s.%s' % (number, kernel, name))


def suite_dirs(out):
    dirs = {}
    sdir = os.path.join(out, 'suites')
    if os.path.isdir(sdir):
        for e in os.listdir(sdir):
            dirs[e.split('-', 1)[1]] = os.path.join(sdir, e)
    return dirs


def cmd_suite(args):
    o, names = parse_opts(args, ['kernel', 'rundir', 'manifest', 'number'])
    name = names[0]
    out = os.path.join(o['rundir'], 'out')
    timeout = dict((n, t) for n, t, _e, _p in manifest_suites(o['manifest'], [name])).get(name, 60)
    p, f, s, problems = judge_suite(suite_dirs(out).get(name, '/nonexistent'), timeout, 'died')
    lines = []
    suite_line(int(o['number']), o['kernel'], name, p, f, s, problems, lines)
    print('\n'.join(lines), flush=True)
    with open(os.path.join(o['rundir'], 'results'), 'a') as fh:
        fh.write('%s %d %d %d\n' % (name, p, f, s))


def cmd_rest(args):
    o, wanted = parse_opts(args, ['kernel', 'rundir', 'manifest', 'qemu_rc', 'first'])
    kernel, rundir = o['kernel'], o['rundir']
    out = os.path.join(rundir, 'out')
    qemu_rc = int(o['qemu_rc'] or 0)
    died = 'hung and was killed' if qemu_rc in (124, 137) else 'died'
    number = int(o['first'])
    total = [0, 0, 0]
    done = {}
    for line in read(os.path.join(rundir, 'results')).splitlines():
        name, p, f, s = line.split()
        done[name] = (int(p), int(f), int(s))
    lines = []
    dirs = suite_dirs(out)
    console = read(os.path.join(rundir, 'console.log'))
    booted = os.path.exists(os.path.join(out, 'dmesg-boot.txt'))
    for name, timeout, _exe, _params in manifest_suites(o['manifest'], wanted):
        if name in done:
            p, f, s = done[name]
        else:
            if booted:
                p, f, s, problems = judge_suite(dirs.get(name, '/nonexistent'), timeout,
                                                died, console)
            else:
                p, f, s, problems = 0, 1, 0, ['not run: the guest %s before any suite' % died]
            suite_line(number, kernel, name, p, f, s, problems, lines)
        total[0] += p
        total[1] += f
        total[2] += s
        number += 1

    # the kernel itself: boot log, kmemleak after the suites, a finished guest
    problems = []
    boot = dmesg_reports(read(os.path.join(out, 'dmesg-boot.txt')))
    if boot:
        problems.append('kernel log reports before the first suite:\n' + '\n'.join(boot[:60]))
    if not booted:
        problems.append('the guest %s before running any suite; console log: %s'
                        % (died, os.path.join(rundir, 'console.log')))
    km = kmemleak_since(read(os.path.join(out, 'kmemleak.txt')),
                        read(os.path.join(out, 'kmemleak-start-jiffies')).strip())
    if km:
        problems.append('kmemleak lists %d unreferenced objects after the suites (all in %s); '
                        'the first:\n' % (km.count('unreferenced object'),
                                          os.path.join(out, 'kmemleak.txt'))
                        + '\n'.join(km.splitlines()[:40]))
    km_dmesg = dmesg_reports(read(os.path.join(out, 'dmesg-kmemleak.txt')))
    if km_dmesg and not km:
        problems.append('kernel log reports during the final kmemleak scan:\n' +
                        '\n'.join(km_dmesg[:40]))
    if booted and not os.path.exists(os.path.join(out, 'finished')):
        cur = read(os.path.join(out, 'current')).strip()
        problems.append('the guest %s%s; console log: %s'
                        % (died, (' in suite ' + cur) if cur else '',
                           os.path.join(rundir, 'console.log')))
    f = len(problems)
    suite_line(number, kernel, 'kernel', 1 - min(f, 1), f, 0, problems, lines)
    total[0] += 1 - min(f, 1)
    total[1] += f
    print('\n'.join(lines))
    print('%d %d %d' % tuple(total))


def cmd_digest(text, limit=200):
    """The failures of a KTAP document of `./scripts/uvm test`, in brief."""
    out = []
    block = []          # diagnostics since the last result line, any depth
    for line in text.splitlines():
        m = re.match(r'^( *)(not ok|ok) \d+ (\S+)', line)
        if not m:
            if line.strip():
                block.append(line)
            continue
        if m.group(2) == 'not ok':
            if m.group(1):
                keep = [b for b in block if b.strip().startswith('#')][-8:]
            else:
                # a suite: its counts line and problems (the lines of
                # block from the "  # kernel.suite:" line on)
                keep = []
                for i in range(len(block) - 1, -1, -1):
                    if re.match(r'^  # \S+: \d+ passed', block[i]):
                        keep = block[i:]
                        break
                keep = keep[:40]
            out += keep + [line]
        block = []
    if not out:
        return
    print('# ---- failures, repeated from above:')
    for line in out[:limit]:
        print('# | ' + line)
    if len(out) > limit:
        print('# | ... %d more lines' % (len(out) - limit))


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'tap-counts':
        p, f, s, planned = tap_counts(sys.stdin.read())
        if planned is not None and p + f + s < planned:
            f += planned - (p + f + s)
        print(p, f, s)
    elif cmd == 'dmesg':
        reports = dmesg_reports(read(args[0]))
        for r in reports:
            print('uvm: kernel: ' + r)
        return 1 if reports else 0
    elif cmd == 'budget':
        suites = manifest_suites(args[0], args[1:])
        print(sum(t + 30 for _n, t, _e, _p in suites))
    elif cmd == 'results':
        cmd_results(args)
    elif cmd == 'suite':
        cmd_suite(args)
    elif cmd == 'rest':
        cmd_rest(args)
    elif cmd == 'digest':
        cmd_digest(sys.stdin.read())
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
