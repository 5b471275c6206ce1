/* topdown help [COMMAND]: topdown --help, or the command's own help; and
 * the lists the bash completion reads (hidden from the help):
 * help --commands, help --options [COMMAND] (none: profiling's). */
#include <stdio.h>

#include "topdown/cli.h"
#include "topdown/commands.h"

/* The command help names: NULL or "" is profiling (for --options only). */
static int command_asked(const char *name, int list_options, td_command *out, td_error *err)
{
    if (list_options && (!name || !name[0])) {
        *out = TD_CMD_PROFILE;
        return 0;
    }
    *out = td_cli_command_named(name);
    if (*out != TD_CMD_COUNT)
        return 0;
    const char *near = td_cli_command_near(name);
    return td_usage_fail(err, "topdown help: no command \"%s\"%s%s%s (topdown --help "
                         "lists them)", name, near ? "; did you mean " : "",
                         near ? near : "", near ? "?" : "");
}

int cmd_help(int argc, char **argv, td_error *err)
{
    cli c;
    const char *files[1] = {NULL};
    int n_files = 0;
    int rc = td_cli_parse_command(argc, argv, TD_CMD_HELP, &c, files, 1, &n_files, err);
    if (rc)
        return rc > 0 ? 0 : rc;
    if (c.list_commands && (c.list_options || n_files))
        return td_usage_fail(err, "topdown help --commands takes no command");
    if (c.list_commands) {
        td_cli_list_commands(stdout);
        return 0;
    }
    if (!n_files && !c.list_options) {
        td_cli_usage(stdout);
        return 0;
    }
    td_command k;
    if (command_asked(files[0], c.list_options, &k, err))
        return TD_USAGE_ERROR;
    if (c.list_options)
        return td_cli_list_options(stdout, k, err);
    td_cli_command_usage(stdout, k);
    return 0;
}
