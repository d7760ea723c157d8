# Unquoted name and key lists keep one field per name or key with an
# empty IFS; shopt -u globskipdots lets ".*" match "." and "..".
show() { printf '<%s>' "$@"; echo; }
sp3_v1=1 sp3_v2=2
a=(x y z)
declare -A m=([k]=1)
IFS=
show ${!sp3_@}
show ${!sp3_*}
show ${!a[@]}
show ${!a[*]}
show "${!a[*]}"
show ${!m[@]} ${!nope[@]} ${!nope[*]}
IFS=x
show ${!a[*]}
unset IFS
show ${!a[*]} ${!a[@]}
touch .h f
mkdir d
show .*
shopt -u globskipdots
show .* d/.* d/.?
shopt -s globskipdots
show .*
