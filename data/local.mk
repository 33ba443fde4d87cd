# Help and teaching texts, installed to $(pkgdatadir).
nobase_dist_pkgdata_DATA += data/help/list.txt data/help/help.txt
