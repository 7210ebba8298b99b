-- includes resolve next to this file only: no absolute paths
return { include = { "/etc/passwd" } }
