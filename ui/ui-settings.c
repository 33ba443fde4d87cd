/* pscoperc for the screen: read at start with the command line applied
 * over it for this run only, written on quit with what the session changed
 * (F2, sort keys, the tree toggle...). A setting the command line gave and
 * the session left alone keeps the file's value, as htop does. */
#include "uipriv.h"
#include "i18n.h"
#include "out/escape.h"
#include "util.h"
#include "proc/ptable.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ui_settings_load(struct ui *ui, const struct ui_opts *o)
{
	struct ps_error e;
	int rc;

	ps_error_clear(&e);
	ui->cfg_path[0] = '\0';
	if (cfg_path(ui->cfg_path, sizeof(ui->cfg_path)) < 0) {
		ui->cfg_path[0] = '\0';
		cfg_defaults(&ui->cfg);
	} else if ((rc = cfg_load(ui->cfg_path, &ui->cfg, &e)) < 0) {
		ui->cfg_broken = true;
		ps_error_str(&e, ui->cfg_error, sizeof(ui->cfg_error));
		ui_message(ui, true, _("settings not read (the file is left as it is): %s"), ui->cfg_error);
	} else if (rc == 1) {
		ui->cfg_absent = true;
	} else if (ui->cfg.warning[0]) {
		/* A newer pscope's setting: the others apply, the line is kept. */
		ui_message(ui, false, "%s", ui->cfg.warning);
		ui->status_until = now_s() + 10;
	}
	ui->cfg_file = ui->cfg;
	if (o->delay_tenths > 0)
		ui->cfg.delay_tenths = (int)o->delay_tenths;
	if (o->tree)
		ui->cfg.tree = true;
	if (o->sort_key) {
		int k = proc_sort_parse(o->sort_key);
		if (k >= 0) {
			ui->cfg.sort_key = k;
			ui->cfg.sort_desc = proc_sort_desc_default((enum proc_sort)k);
		}
	}
	ui->cfg_start = ui->cfg;
	ui->delay_tenths = ui->cfg.delay_tenths;
	const char *nc = getenv("NO_COLOR");
	ui->colour = !o->no_color && !(nc && nc[0]);
}

void ui_settings_save(struct ui *ui)
{
	struct pscope_config out;
	struct ps_error e;
	char buf[768];

	ui->cfg.delay_tenths = (int)ui->delay_tenths;
	if (!ui->cfg_path[0])
		return;
	if (ui->cfg_broken) {
		if (!cfg_same(&ui->cfg, &ui->cfg_start))
			fprintf(stderr, _("pscope: settings changed in this session not saved: %s: %s\n"), esc(ui->cfg_path),
				esc(ui->cfg_error));
		return;
	}
	/* Nothing changed: the file stays as it is, byte for byte. */
	if (!cfg_merge(&out, &ui->cfg_file, &ui->cfg_start, &ui->cfg) && !ui->cfg_absent)
		return;
	ps_error_clear(&e);
	if (cfg_save(ui->cfg_path, &out, &e) < 0)
		fprintf(stderr, "pscope: %s\n", ps_error_str(&e, buf, sizeof(buf)));
}
