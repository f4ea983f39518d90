/* SPDX-License-Identifier: MIT */
/* The per-program tables (compiler/cmd_tables.h). */
#include "cmd_tables.h"
#include "text.h"

#include <string.h>

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})

static const struct cp_wrapper wrappers[] = {
    {"arch", L("-arch"), NULL, 0, false},
    {"builtin", NULL, NULL, 0, false},
    {"busybox", NULL, NULL, 0, false},
    {"caffeinate", L("-t", "-w"), NULL, 0, false},
    {"catchsegv", NULL, NULL, 0, false},
    {"chroot", L("--userspec", "--groups"), NULL, 1, false},
    {"chrt", NULL, NULL, 1, false},
    {"command", NULL, NULL, 0, false},
    {"corepack", NULL, NULL, 0, false},
    {"doas", L("-u", "-C"), NULL, 0, false},
    {"env", L("-u", "-C", "--unset", "--chdir"), L("-S", "--split-string"), 0,
     true},
    {"exec", L("-a"), NULL, 0, false},
    {"faketime", L("-f"), NULL, 1, false},
    {"firejail", NULL, NULL, 0, false},
    {"flock", L("-w", "--timeout", "-E", "--conflict-exit-code"),
     L("-c", "--command"), 1, false},
    {"ionice", L("-c", "-n", "-p", "--class", "--classdata"), NULL, 0, false},
    {"ltrace", L("-o", "-e", "-p", "-s", "-u"), NULL, 0, false},
    {"nice", L("-n", "--adjustment"), NULL, 0, false},
    {"nohup", NULL, NULL, 0, false},
    {"pkexec", L("--user"), NULL, 0, false},
    {"proxychains", L("-f"), NULL, 0, false},
    {"proxychains4", L("-f"), NULL, 0, false},
    {"rlwrap", NULL, NULL, 0, false},
    {"run0",
     L("-u", "--user", "-g", "--group", "-D", "--chdir", "--nice", "--setenv",
       "--unit", "-p", "--property", "--description", "--slice", "--machine"),
     NULL, 0, false},
    {"parallel",
     L("-j", "--jobs", "-S", "--sshlogin", "-a", "--arg-file", "-d",
       "--delimiter", "-E", "-I", "-N", "-n", "--max-args", "-C", "--colsep",
       "--delay", "--timeout", "--joblog", "--results", "--tmpdir", "--workdir",
       "--wd", "--tag-string", "--env", "-P", "--max-procs"),
     NULL, 0, false},
    {"setsid", NULL, NULL, 0, false},
    {"sshpass", L("-p", "-f", "-d", "-P"), NULL, 0, false},
    {"stdbuf", L("-i", "-o", "-e", "--input", "--output", "--error"), NULL, 0,
     false},
    {"strace",
     L("-o", "-e", "-p", "-s", "-u", "-a", "-P", "-I", "-b", "-O", "-S", "-X",
       "-E"),
     NULL, 0, false},
    {"sudo",
     L("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "--user",
       "--group", "--close-from", "--chdir", "--host", "--prompt", "--role",
       "--type", "--command-timeout", "--other-user"),
     NULL, 0, false},
    {"taskset", NULL, NULL, 1, false},
    {"time", L("-f", "-o", "--format", "--output"), NULL, 0, false},
    {"timeout", L("-s", "-k", "--signal", "--kill-after"), NULL, 1, false},
    {"torsocks", L("-u", "-p", "-a", "-P"), NULL, 0, false},
    {"toybox", NULL, NULL, 0, false},
    {"unshare", NULL, NULL, 0, false},
    {"xargs",
     L("-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file",
       "--delimiter", "--max-args", "--max-procs", "--max-chars", "--max-lines",
       "--replace"),
     NULL, 0, false},
};

/* Looked up for every word of a line that may run a here-document: a
 * hashed set, filled on first use, not a scan of the table per word. */
const struct cp_wrapper *cp_cmd_wrapper(const char *name)
{
    static struct cp_nameset set;
    static bool built;
    if (!built) {
        for (size_t k = 0; k < sizeof wrappers / sizeof wrappers[0]; k++)
            cp_nameset_put(&set, wrappers[k].name, (int)k);
        built = true;
    }
    int k = cp_nameset_get(&set, name);
    return k < 0 ? NULL : &wrappers[k];
}

/* Options that take a separate value, per program: the word after one may
 * be that value or an operand, so it is an optional operand.  Global
 * options before a subcommand belong here (`npm --loglevel silent i`, `pip
 * --proxy URL install`, `apt-get -o X install`, `aws --profile p s3 cp`):
 * without them the value would be read as the subcommand. */
static const struct {
    const char *prog;
    const char *const *opts;
} value_opts[] = {
    {"curl", L("-o", "-T", "-d", "-F", "-H", "-X", "-u", "-A", "-e", "-x", "-K",
               "-b", "-c", "-E", "-w", "--data", "--data-binary", "--data-raw",
               "--data-urlencode", "--data-ascii", "--form", "--upload-file",
               "--header", "--request", "--user", "--output", "--proxy",
               "--config", "--cookie", "--url", "--json")},
    {"apt",
     L("-o", "--option", "-c", "--config-file", "-t", "--target-release")},
    {"apt-get",
     L("-o", "--option", "-c", "--config-file", "-t", "--target-release")},
    {"aws", L("--profile", "--region", "--output", "--endpoint-url", "--query",
              "--ca-bundle", "--cli-read-timeout", "--cli-connect-timeout",
              "--color")},
    {"cargo", L("--config", "-Z", "--color", "-C")},
    {"composer", L("-d", "--working-dir")},
    {"docker", L("-H", "--host", "--context", "-c", "--config", "-l")},
    {"gh", L("-R", "--repo", "--hostname")},
    {"git", L("-C", "-c", "--git-dir", "--work-tree", "--namespace",
              "--config-env", "--super-prefix", "-o", "--push-option", "--repo",
              "--receive-pack", "--exec")},
    {"kubectl", L("-n", "--namespace", "--context", "--kubeconfig")},
    {"npm", L("--prefix", "-w", "--workspace", "--registry", "--loglevel",
              "--cache", "--userconfig", "--globalconfig", "--color")},
    {"pip", L("--proxy", "-i", "--index-url", "--extra-index-url",
              "--cache-dir", "--log", "--cert", "--client-cert",
              "--trusted-host", "--timeout", "--retries", "--python")},
    {"pip3", L("--proxy", "-i", "--index-url", "--extra-index-url",
               "--cache-dir", "--log", "--cert", "--client-cert",
               "--trusted-host", "--timeout", "--retries", "--python")},
    {"pnpm", L("-C", "--dir", "--filter", "-F", "--loglevel")},
    {"rclone", L("--config", "--log-file", "--log-level")},
    {"rsync", L("-e", "--rsh")},
    {"scp", L("-P", "-i", "-F", "-o", "-S", "-c", "-l", "-J")},
    {"sftp", L("-P", "-i", "-F", "-o", "-S", "-b", "-J")},
    {"ssh", L("-p", "-i", "-F", "-o", "-l", "-J", "-L", "-R", "-D", "-W", "-b",
              "-c", "-E", "-m")},
    {"yarn", L("--cwd", "--cache-folder", "--modules-folder")},
    {"wget", L("-O", "-o", "-P", "-e", "--post-file", "--post-data", "--header",
               "--body-file", "--method")},
};

const char *const *cp_cmd_value_opts(const char *prog)
{
    for (size_t i = 0; i < sizeof value_opts / sizeof value_opts[0]; i++)
        if (strcmp(value_opts[i].prog, prog) == 0)
            return value_opts[i].opts;
    return NULL;
}

bool cp_cmd_plus_word(const char *prog)
{
    return strcmp(prog, "cargo") == 0 || strcmp(prog, "rustup") == 0 ||
           strcmp(prog, "rustc") == 0 || strcmp(prog, "rustdoc") == 0;
}
