import Testing

@testable import TripsServer

/// What the page writer escapes: everything a client sent, in text and in attributes.
@Suite struct HTMLWriterTests {
    @Test func textEscapesEveryCharacterThatCouldEndTextOrAnAttribute() {
        var html = HTMLWriter()
        html.attribute("title", #"<b> & "x" 'y'"#)
        #expect(String(decoding: html.bytes, as: UTF8.self) == #" title="&lt;b&gt; &amp; &quot;x&quot; &#39;y&#39;""#)
    }

    /// Between single quotes a double quote cannot end the value, so JSON keeps its quotes and
    /// a single quote (which could) is escaped.
    @Test func aSingleQuotedAttributeKeepsDoubleQuotesAndEscapesTheRest() {
        var html = HTMLWriter()
        html.singleQuotedAttribute("data-json", #"{"notes":"it's <b> & x"}"#)
        #expect(String(decoding: html.bytes, as: UTF8.self) == #" data-json='{"notes":"it&#39;s &lt;b&gt; &amp; x"}'"#)
    }
}
