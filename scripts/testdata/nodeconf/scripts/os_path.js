const os = require('os');
const path = require('path');
console.log(JSON.stringify(os.EOL), typeof os.tmpdir(), typeof os.homedir(), Array.isArray(os.cpus()), os.endianness());
console.log(path.join('/a/b', '../c', './d.txt'), path.normalize('/x//y/../z/'), path.dirname('/a/b/c.txt'));
console.log(path.basename('/a/b/c.txt', '.txt'), path.extname('archive.tar.gz'), path.isAbsolute('rel/x'));
console.log(path.relative('/data/orandea/test/aaa', '/data/orandea/impl/bbb'), path.sep, path.delimiter);
console.log(JSON.stringify(path.parse('/home/user/dir/file.txt')));
console.log(path.format({ dir: '/home/user/dir', base: 'file.txt' }), path.posix === path || path.posix.join('a', 'b'));
console.log(path.resolve('/foo/bar', './baz'), path.resolve('/foo/bar', '/tmp/file/'));
