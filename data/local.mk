# Help and teaching texts, installed to $(pkgdatadir).
nobase_dist_pkgdata_DATA += data/help/list.txt data/help/help.txt
nobase_dist_pkgdata_DATA += data/themes/default.theme data/themes/monochrome.theme data/themes/black-on-white.theme
nobase_dist_pkgdata_DATA += data/help/setup.txt
