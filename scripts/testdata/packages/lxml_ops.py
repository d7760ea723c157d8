# lxml's everyday work, the same under skillrun's WebAssembly Python and
# Debian's python3-lxml: parsing, XPath with namespaces, building,
# serialising, XSLT, HTML, objectify, canonical XML and validation.
# packages_test.go compares stdout and every file written with a native
# run.
import io

from lxml import etree, html, objectify

print("lxml", etree.LXML_VERSION, "libxml2", etree.LIBXML_VERSION, "libxslt", etree.LIBXSLT_VERSION)
NS = "http://schemas.example.org/doc"
doc = etree.fromstring(
    b'<doc xmlns="%s" xmlns:x="urn:x"><p n="1">alpha <b>bold</b> tail</p><p n="2" x:k="v">beta</p>'
    b"<!-- note --><?pi data?><![CDATA[ <raw> ]]></doc>" % NS.encode())
print(doc.xpath("count(//d:p)", namespaces={"d": NS}))
print([p.get("n") for p in doc.iterfind("{%s}p" % NS)])
print(doc.xpath("string(//d:p[2]/@x:k)", namespaces={"d": NS, "x": "urn:x"}))
print(etree.tostring(doc, encoding="unicode"))
print(etree.tostring(doc, method="c14n"))

root = etree.Element("report", version="1")
for i in range(3):
    etree.SubElement(root, "row", id=str(i)).text = "value %d & more" % i
tree = etree.ElementTree(root)
tree.write("report.xml", pretty_print=True, xml_declaration=True, encoding="UTF-8")
print(open("report.xml").read())

xslt = etree.XSLT(etree.XML(
    b'<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">'
    b'<xsl:output method="html"/><xsl:template match="/"><ul><xsl:for-each select="//row">'
    b'<li><xsl:value-of select="@id"/>: <xsl:value-of select="."/></li></xsl:for-each></ul>'
    b"</xsl:template></xsl:stylesheet>"))
print(str(xslt(tree)))

page = html.fromstring("<html><body><div class='a'><p>One<p>Two<a href='/x'>link</a></div></body></html>")
print(page.xpath("//p/text()"), [a.get("href") for a in page.iter("a")])
print(html.tostring(page, pretty_print=True).decode())

o = objectify.fromstring("<cfg><n>3</n><f>2.5</f><s>text</s><b>true</b></cfg>")
print(o.n + 1, o.f * 2, o.s.text.upper(), bool(o.b))

for event, el in etree.iterparse(io.BytesIO(b"<a><b>1</b><b>2</b></a>"), events=("start", "end")):
    print(event, el.tag, el.text)

schema = etree.XMLSchema(etree.XML(
    b'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="n" type="xs:integer"/></xs:schema>'))
print(schema.validate(etree.XML(b"<n>12</n>")), schema.validate(etree.XML(b"<n>x</n>")))
print(str(schema.error_log.last_error.message))
dtd = etree.DTD(io.StringIO("<!ELEMENT a (b+)><!ELEMENT b (#PCDATA)>"))
print(dtd.validate(etree.XML(b"<a><b/></a>")), dtd.validate(etree.XML(b"<a/>")))
try:
    etree.fromstring(b"<a><b></a>")
except etree.XMLSyntaxError as e:
    print("XMLSyntaxError", e)
