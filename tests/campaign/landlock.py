"""The Landlock enforcer as a target of the campaign (spec/runtime.md §12):
the same .bwrap artifact as the bwrap target, applied by
`confpol-run --enforcer landlock`, symbolic and bound.

Its report is the `landlock` rows of `build --fidelity` (not bwrap's) and
the warnings of the build and of each launch.  `deny write` is rated
"not enforced ... partially" there for the metadata of the user's own
files: the agent observes writes by their contents here (a file opened
for writing, an entry created in a directory, a link renamed), and the row
is passed on as "exact (contents)" so that a looser content write is never
excused by it.  The metadata hole itself is announced on every launch and
tested in tests/sh/runtime-landlock.sh."""

import os

import bwrap


class Landlock(bwrap.Bwrap):
    def __init__(self, confpol, confpol_run, bound):
        super().__init__(confpol, confpol_run, bound)
        self.name = 'landlock-bound' if bound else 'landlock-symbolic'
        # A deny read's metadata is not hidden (refused without the flag,
        # announced with it); the agent probes contents.
        self.run_args = ['--enforcer', 'landlock', '--allow-unenforced']
        # The metadata of the user's own files is partly enforced (announced
        # on every launch, tested in tests/sh/runtime-landlock.sh): the
        # agent observes writes to existing paths by their contents.
        self.env_extra = {'CAMPAIGN_WRITE': 'contents'}
        # Its stricter rows name what Landlock cannot grant, not the paths
        # it affects: judged by the report as a whole.
        self.stricter_by_path = False

    def _out(self, c):
        return os.path.join(c.base, 'out', 'll-bound' if self.bound else 'll-sym')

    def prepare(self, c):
        report = super().prepare(c)
        rows = []
        for line in report.split('\n'):
            cols = line.split('\t')
            if len(cols) >= 4:
                if cols[1] != 'landlock':
                    continue
                if cols[2].startswith('not enforced') and cols[3].startswith('partially: contents'):
                    cols[2] = 'exact (contents)'
                line = '\t'.join(cols)
            rows.append(line)
        return '\n'.join(rows)
