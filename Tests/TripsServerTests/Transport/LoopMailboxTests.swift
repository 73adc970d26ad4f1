import Glibc
import Testing

@testable import TripsHTTP

/// How posts wake a loop: once when the mailbox goes from quiet to signalled, not while the
/// loop is handling mail (it takes what came meanwhile before it waits again), and never
/// lost in between.
@Suite struct LoopMailboxTests {
    /// Whether the eventfd would wake the loop now (its counter is above zero); reading it
    /// clears it, as the loop's `take` does.
    private func wakes(_ mailbox: LoopMailbox<EchoConnection>) -> Bool {
        var count: UInt64 = 0
        return read(mailbox.eventDescriptor, &count, 8) == 8 && count > 0
    }

    @Test func postsWhileTheLoopHandlesMailWakeNothingAndAreTakenBeforeItWaits() throws {
        let mailbox = try LoopMailbox<EchoConnection>()
        mailbox.publish(Array("first".utf8))
        #expect(wakes(mailbox))
        #expect(mailbox.take().streamMessages == [Array("first".utf8)])
        mailbox.publish(Array("second".utf8))
        mailbox.publish(Array("third".utf8))
        #expect(!wakes(mailbox), "the loop is awake: no post writes the eventfd")
        #expect(mailbox.takeMore()?.streamMessages == [Array("second".utf8), Array("third".utf8)])
        #expect(mailbox.takeMore() == nil, "nothing came meanwhile: the loop waits")
        mailbox.publish(Array("fourth".utf8))
        #expect(wakes(mailbox), "a post to a waiting loop wakes it")
        #expect(mailbox.take().streamMessages == [Array("fourth".utf8)])
    }

    @Test func aLoopThatLetsItsOtherDescriptorsGoFirstWakesItselfForTheRest() throws {
        let mailbox = try LoopMailbox<EchoConnection>()
        mailbox.requestShutdown()
        #expect(wakes(mailbox))
        #expect(mailbox.take().shutdownRequested)
        mailbox.publish(Array("later".utf8))
        #expect(mailbox.takeMore(orWake: true) == nil)
        #expect(wakes(mailbox), "the mail still waiting wakes the loop's next wait")
        #expect(mailbox.take().streamMessages == [Array("later".utf8)])
        #expect(mailbox.takeMore() == nil)
    }
}
