package io.elastikey.edge.content;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlightsTest {
    private final Flights flights = new Flights();
    private final List<Flights.Outcome> delivered = new ArrayList<>();
    private final Flights.Waiter waiter = delivered::add;

    private static FullHttpResponse answer() {
        return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                Unpooled.copiedBuffer("body", UTF_8));
    }

    private static Flights.Outcome shared(FullHttpResponse r) {
        return new Flights.Outcome(r, ContentHandler.MISS, List.of(), true, null);
    }

    @Test
    void oneLeaderPerKeyAndTheWaitersGetCopies() {
        byte[] key = {1, 2};
        Flights.Flight leader = flights.leadOrJoin(key, waiter);
        assertThat(leader).isNotNull();
        assertThat(flights.leadOrJoin(new byte[] {1, 2}, waiter)).isNull();
        assertThat(flights.leadOrJoin(new byte[] {1, 2}, waiter)).isNull();
        assertThat(flights.leadOrJoin(new byte[] {3}, waiter)).as("another key").isNotNull();
        assertThat(flights.waiting()).isEqualTo(2);
        FullHttpResponse r = answer();
        leader.finish(shared(r), false);
        assertThat(delivered).hasSize(2);
        assertThat(delivered.get(0).response()).isNotSameAs(r);
        assertThat(delivered.get(0).response().content().toString(UTF_8)).isEqualTo("body");
        delivered.forEach(o -> o.response().release());
        assertThat(r.refCnt()).isEqualTo(1);
        r.release();
        assertThat(flights.waiting()).isZero();
        assertThat(flights.leadOrJoin(key, waiter)).as("over: the next miss leads").isNotNull();
    }

    @Test
    void untilTheAnswerIsStoredLateRequestsGetItAtOnce() {
        byte[] key = {7};
        Flights.Flight leader = flights.leadOrJoin(key, waiter);
        FullHttpResponse r = answer();
        leader.finish(shared(r), true);
        r.release();
        assertThat(flights.leadOrJoin(key, waiter)).isNull();
        assertThat(delivered).hasSize(1);
        assertThat(flights.leadIfIdle(key)).as("no background revalidation while it is being stored").isNull();
        delivered.get(0).response().release();
        leader.close();
        assertThat(r.refCnt()).as("the flight's own copy released").isZero();
        assertThat(flights.leadOrJoin(key, waiter)).isNotNull();
    }

    @Test
    void anAnswerNotForSharingGivesTheWaitersNothingAndDoesNotLinger() {
        byte[] key = {9};
        Flights.Flight leader = flights.leadOrJoin(key, waiter);
        flights.leadOrJoin(key, waiter);
        FullHttpResponse r = answer();
        leader.finish(new Flights.Outcome(r, ContentHandler.MISS, null, true, null), true);
        assertThat(delivered).hasSize(1);
        assertThat(delivered.get(0).response()).isNull();
        assertThat(flights.leadOrJoin(key, waiter)).isNotNull();
        r.release();
    }
}
