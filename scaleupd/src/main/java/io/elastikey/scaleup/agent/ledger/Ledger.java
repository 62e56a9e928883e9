// Ledger -- the grants on disk: replaced atomically after every change, read back at startup.
package io.elastikey.scaleup.agent.ledger;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.elastikey.scaleup.agent.pool.Owner;
import io.elastikey.scaleup.protocol.ProtocolLimits;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * The file that makes grants survive a restart or a crash of the agent. Layout (UTF-8 JSON, one object):
 * <pre>{"format":"elastikey-scaleupd-ledger","version":2,"grants":{"edge":256,"keyserver":1024},
 *  "owners":{"edge":{"uid":998,"pid":4242},"keyserver":{"uid":999,"pid":4243}}}</pre>
 * {@code grants} maps client names to MiB; a client without an entry holds nothing. {@code owners} maps a client
 * with a grant to the user and process that made it ({@link Owner}; only that user, or root, may change it).
 * Version 1 files (no {@code owners}) are read, their grants without owners; the agent writes version 2.
 *
 * <p>{@link #write} replaces the file atomically: the new content goes to {@code <file>.tmp} in the same directory
 * and is renamed over the file, so a crash of the agent at any point leaves either the old or the new ledger, never
 * a mix; a stale {@code .tmp} is ignored. The agent calls it before it answers, so an answer never reports a grant
 * the ledger lacks. How far "crash" reaches is the {@link Sync} choice: a grant belongs to a running process, and a
 * machine that loses power loses those processes too, so by default the ledger survives the agent's death
 * ({@code kill -9}, an OOM kill, a restart) without paying a disk flush on every grant change.
 *
 * <p>{@link #read} is strict: anything but the layout above is a {@link LedgerException} naming the file. A missing
 * file is an empty ledger (first start). Not thread-safe: the agent's single decision thread owns it.
 */
public final class Ledger {

    /** What a written ledger survives. */
    public enum Sync {
        /**
         * The agent's death: the rename is atomic in the kernel, and the page cache outlives the process. No
         * flush, so a grant change costs microseconds (the default).
         */
        PROCESS,
        /**
         * Power loss too: the temp file and the directory are fsynced around the rename. On the build machine's
         * disk that is about 0.5 ms at p50 and 12 ms at p99 per grant change (docs/benchmarks.md).
         */
        POWER
    }

    private static final String FORMAT = "elastikey-scaleupd-ledger";
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    private final Path file;
    private final Path temp;
    private final Sync sync;

    public Ledger(Path file, Sync sync) {
        this.file = file.toAbsolutePath();
        this.sync = sync;
        this.temp = this.file.resolveSibling(this.file.getFileName() + ".tmp");
    }

    public Path file() {
        return file;
    }

    /** What a ledger holds: grants in MiB and their owners, by client name. */
    public record Contents(Map<String, Long> grants, Map<String, Owner> owners) {
    }

    /** The grants on disk; empty if the file does not exist yet. */
    public Map<String, Long> read() throws LedgerException {
        return readAll().grants();
    }

    /** The grants and owners on disk; empty if the file does not exist yet. */
    public Contents readAll() throws LedgerException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return new Contents(new TreeMap<>(), new TreeMap<>());
        } catch (IOException e) {
            throw new LedgerException("cannot read the ledger " + file + ": " + e, e);
        }
        try {
            return parse(bytes);
        } catch (IOException | RuntimeException e) {
            throw new LedgerException("the ledger " + file + " is corrupt (" + e.getMessage() + "); fix or move it "
                    + "aside: the agent does not reset grants on its own", e);
        }
    }

    /** Replaces the file with {@code grants} and no owners. */
    public void write(Map<String, Long> grants) throws LedgerException {
        write(grants, Map.of());
    }

    /** Replaces the file with {@code grants} and their {@code owners}, durably, before returning. */
    public void write(Map<String, Long> grants, Map<String, Owner> owners) throws LedgerException {
        try {
            Files.createDirectories(file.getParent());
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                OutputStream out = Channels.newOutputStream(ch);
                try (JsonGenerator g = JSON.createGenerator(out)) {
                    g.configure(JsonGenerator.Feature.AUTO_CLOSE_TARGET, false);
                    g.writeStartObject();
                    g.writeStringField("format", FORMAT);
                    g.writeNumberField("version", 2);
                    g.writeObjectFieldStart("grants");
                    for (Map.Entry<String, Long> e : new TreeMap<>(grants).entrySet()) {
                        g.writeNumberField(e.getKey(), e.getValue());
                    }
                    g.writeEndObject();
                    g.writeObjectFieldStart("owners");
                    for (Map.Entry<String, Owner> e : new TreeMap<>(owners).entrySet()) {
                        g.writeObjectFieldStart(e.getKey());
                        g.writeNumberField("uid", e.getValue().uid());
                        g.writeNumberField("pid", e.getValue().pid());
                        g.writeEndObject();
                    }
                    g.writeEndObject();
                    g.writeEndObject();
                }
                out.write('\n');
                if (sync == Sync.POWER) {
                    ch.force(true);
                }
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            if (sync == Sync.POWER) {
                try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
                    dir.force(true);
                }
            }
        } catch (IOException e) {
            throw new LedgerException("cannot write the ledger " + file + ": " + e, e);
        }
    }

    private static Contents parse(byte[] bytes) throws IOException {
        Map<String, Long> grants = null;
        Map<String, Owner> owners = new TreeMap<>();
        boolean formatSeen = false;
        try (JsonParser p = JSON.createParser(bytes)) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "not a JSON object");
            for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
                JsonToken t = p.nextToken();
                switch (field) {
                    case "format" -> {
                        expect(t == JsonToken.VALUE_STRING && FORMAT.equals(p.getText()), "format is not " + FORMAT);
                        formatSeen = true;
                    }
                    case "version" -> expect(t == JsonToken.VALUE_NUMBER_INT
                            && (p.getIntValue() == 1 || p.getIntValue() == 2), "unsupported version");
                    case "grants" -> grants = parseGrants(p, t);
                    case "owners" -> owners = parseOwners(p, t);
                    default -> p.skipChildren();
                }
            }
            expect(p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null, "content after the object");
        }
        expect(formatSeen, "no format field");
        expect(grants != null, "no grants field");
        for (String name : owners.keySet()) {
            expect(grants.containsKey(name), "owner of " + name + ", who holds no grant");
        }
        return new Contents(grants, owners);
    }

    private static Map<String, Owner> parseOwners(JsonParser p, JsonToken t) throws IOException {
        expect(t == JsonToken.START_OBJECT, "owners is not an object");
        Map<String, Owner> owners = new TreeMap<>();
        for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
            expect(p.nextToken() == JsonToken.START_OBJECT, "owner of " + name + " is not an object");
            long uid = -1;
            long pid = -1;
            for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
                expect(p.nextToken() == JsonToken.VALUE_NUMBER_INT
                        && p.getNumberType() == JsonParser.NumberType.INT, field + " of " + name + " is not an int");
                switch (field) {
                    case "uid" -> uid = p.getIntValue();
                    case "pid" -> pid = p.getIntValue();
                    default -> { }
                }
            }
            expect(uid >= 0 && pid >= 0, "owner of " + name + " needs a uid and a pid >= 0");
            owners.put(name, new Owner((int) uid, (int) pid));
        }
        return owners;
    }

    private static Map<String, Long> parseGrants(JsonParser p, JsonToken t) throws IOException {
        expect(t == JsonToken.START_OBJECT, "grants is not an object");
        Map<String, Long> grants = new TreeMap<>();
        for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
            String problem = ProtocolLimits.clientNameProblem(name);
            expect(problem == null, "bad client name in grants: " + problem);
            expect(p.nextToken() == JsonToken.VALUE_NUMBER_INT
                    && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER, "grant of " + name + " is not an integer");
            long mb = p.getLongValue();
            expect(ProtocolLimits.memoryProblem(mb) == null, "grant of " + name + " is out of range");
            grants.put(name, mb);
        }
        return grants;
    }

    private static void expect(boolean ok, String problem) throws IOException {
        if (!ok) {
            throw new IOException(problem);
        }
    }
}
