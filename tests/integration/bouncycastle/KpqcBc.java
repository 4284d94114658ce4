// Bouncy Castle's side of the interoperability tests: key files written and
// read with BC's own factories (the encodings BC really uses), and BC's KEM
// encapsulation and decapsulation.
//
//   java KpqcBc keygen ALG PUB.der PRIV.der       a BC key pair, SPKI and PKCS#8 DER
//   java KpqcBc encaps PUB.der CT SS              BC reads the SPKI, encapsulates
//   java KpqcBc decaps PRIV.der CT SS             BC reads the PKCS#8, decapsulates
//   java KpqcBc oid ALG                           the OID of BC's key files for ALG
//   java KpqcBc katverify ALG FILE.rsp            how many signatures of a NIST-format
//                                                 KAT file BC's verifier accepts
//   java KpqcBc selfkat ALG FILE.rsp N            N records signed by BC itself in that
//                                                 format (katverify's control)
//
// ALG is our name (smaugt1, smaugt3, smaugt5, timer, ntruplus768,
// ntruplus864, ntruplus1152, haetae2/3/5, aimer128f ...).
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.AsymmetricCipherKeyPairGenerator;
import org.bouncycastle.crypto.EncapsulatedSecretExtractor;
import org.bouncycastle.crypto.EncapsulatedSecretGenerator;
import org.bouncycastle.crypto.KeyGenerationParameters;
import org.bouncycastle.crypto.SecretWithEncapsulation;
import org.bouncycastle.crypto.params.AsymmetricKeyParameter;
import org.bouncycastle.pqc.crypto.MessageSigner;
import org.bouncycastle.pqc.crypto.aimer.AIMerKeyGenerationParameters;
import org.bouncycastle.pqc.crypto.aimer.AIMerKeyPairGenerator;
import org.bouncycastle.pqc.crypto.aimer.AIMerParameters;
import org.bouncycastle.pqc.crypto.aimer.AIMerPublicKeyParameters;
import org.bouncycastle.pqc.crypto.aimer.AIMerSigner;
import org.bouncycastle.pqc.crypto.haetae.HAETAEKeyGenerationParameters;
import org.bouncycastle.pqc.crypto.haetae.HAETAEKeyPairGenerator;
import org.bouncycastle.pqc.crypto.haetae.HAETAEParameters;
import org.bouncycastle.pqc.crypto.haetae.HAETAEPublicKeyParameters;
import org.bouncycastle.pqc.crypto.haetae.HAETAESigner;
import org.bouncycastle.pqc.crypto.ntruplus.NTRUPlusKEMExtractor;
import org.bouncycastle.pqc.crypto.ntruplus.NTRUPlusKEMGenerator;
import org.bouncycastle.pqc.crypto.ntruplus.NTRUPlusKeyGenerationParameters;
import org.bouncycastle.pqc.crypto.ntruplus.NTRUPlusKeyPairGenerator;
import org.bouncycastle.pqc.crypto.ntruplus.NTRUPlusParameters;
import org.bouncycastle.pqc.crypto.ntruplus.NTRUPlusPrivateKeyParameters;
import org.bouncycastle.pqc.crypto.smaugt.SmaugTKEMExtractor;
import org.bouncycastle.pqc.crypto.smaugt.SmaugTKEMGenerator;
import org.bouncycastle.pqc.crypto.smaugt.SmaugTKeyGenerationParameters;
import org.bouncycastle.pqc.crypto.smaugt.SmaugTKeyPairGenerator;
import org.bouncycastle.pqc.crypto.smaugt.SmaugTParameters;
import org.bouncycastle.pqc.crypto.smaugt.SmaugTPrivateKeyParameters;
import org.bouncycastle.pqc.crypto.util.PrivateKeyFactory;
import org.bouncycastle.pqc.crypto.util.PrivateKeyInfoFactory;
import org.bouncycastle.pqc.crypto.util.PublicKeyFactory;
import org.bouncycastle.pqc.crypto.util.SubjectPublicKeyInfoFactory;
import org.bouncycastle.util.encoders.Hex;

public final class KpqcBc {
    private static final SecureRandom RANDOM = new SecureRandom();

    private static final Map<String, SmaugTParameters> SMAUGT = Map.of(
        "smaugt1", SmaugTParameters.smaugt_mode1, "smaugt3", SmaugTParameters.smaugt_mode3,
        "smaugt5", SmaugTParameters.smaugt_mode5, "timer", SmaugTParameters.smaugt_modet);
    private static final Map<String, NTRUPlusParameters> NTRUPLUS = Map.of(
        "ntruplus768", NTRUPlusParameters.ntruplus_kem_768, "ntruplus864", NTRUPlusParameters.ntruplus_kem_864,
        "ntruplus1152", NTRUPlusParameters.ntruplus_kem_1152);
    private static final Map<String, HAETAEParameters> HAETAE = Map.of(
        "haetae2", HAETAEParameters.haetae2, "haetae3", HAETAEParameters.haetae3, "haetae5", HAETAEParameters.haetae5);
    private static final Map<String, AIMerParameters> AIMER = Map.of(
        "aimer128f", AIMerParameters.aimer128f, "aimer128s", AIMerParameters.aimer128s,
        "aimer192f", AIMerParameters.aimer192f, "aimer192s", AIMerParameters.aimer192s,
        "aimer256f", AIMerParameters.aimer256f, "aimer256s", AIMerParameters.aimer256s);

    private static AsymmetricCipherKeyPairGenerator generator(String alg) {
        AsymmetricCipherKeyPairGenerator g;
        KeyGenerationParameters params;
        if (SMAUGT.containsKey(alg)) {
            g = new SmaugTKeyPairGenerator();
            params = new SmaugTKeyGenerationParameters(RANDOM, SMAUGT.get(alg));
        } else if (NTRUPLUS.containsKey(alg)) {
            g = new NTRUPlusKeyPairGenerator();
            params = new NTRUPlusKeyGenerationParameters(RANDOM, NTRUPLUS.get(alg));
        } else if (HAETAE.containsKey(alg)) {
            g = new HAETAEKeyPairGenerator();
            params = new HAETAEKeyGenerationParameters(RANDOM, HAETAE.get(alg));
        } else if (AIMER.containsKey(alg)) {
            g = new AIMerKeyPairGenerator();
            params = new AIMerKeyGenerationParameters(RANDOM, AIMER.get(alg));
        } else {
            throw new IllegalArgumentException("unknown algorithm " + alg);
        }
        g.init(params);
        return g;
    }

    private static EncapsulatedSecretGenerator encapsulator(AsymmetricKeyParameter pub) {
        String family = pub.getClass().getPackage().getName();
        if (family.endsWith(".smaugt")) return new SmaugTKEMGenerator(RANDOM);
        if (family.endsWith(".ntruplus")) return new NTRUPlusKEMGenerator(RANDOM);
        throw new IllegalArgumentException("not a KEM key: " + pub.getClass().getName());
    }

    private static EncapsulatedSecretExtractor decapsulator(AsymmetricKeyParameter priv) {
        if (priv instanceof SmaugTPrivateKeyParameters) return new SmaugTKEMExtractor((SmaugTPrivateKeyParameters) priv);
        if (priv instanceof NTRUPlusPrivateKeyParameters)
            return new NTRUPlusKEMExtractor((NTRUPlusPrivateKeyParameters) priv);
        throw new IllegalArgumentException("not a KEM key: " + priv.getClass().getName());
    }

    private static MessageSigner verifier(String alg, byte[] pk) {
        MessageSigner signer;
        if (HAETAE.containsKey(alg)) {
            signer = new HAETAESigner();
            signer.init(false, new HAETAEPublicKeyParameters(HAETAE.get(alg), pk));
        } else {
            signer = new AIMerSigner();
            signer.init(false, new AIMerPublicKeyParameters(AIMER.get(alg), pk));
        }
        return signer;
    }

    // The KAT's signature: its `sig` field (HAETAE pads it with zeros, tried
    // as written and without the padding), else its signed message `sm`
    // without the message at either end.
    private static boolean verifiesRecord(String alg, Map<String, String> r) {
        byte[] pk = Hex.decode(r.get("pk")), msg = Hex.decode(r.get("msg"));
        List<byte[]> candidates = new ArrayList<>();
        if (r.containsKey("sig")) {
            byte[] sig = Hex.decode(r.get("sig"));
            candidates.add(sig);
            int n = sig.length;
            while (n > 0 && sig[n - 1] == 0) n--;
            candidates.add(Arrays.copyOf(sig, n));
        } else {
            byte[] sm = Hex.decode(r.get("sm"));
            candidates.add(Arrays.copyOfRange(sm, msg.length, sm.length));
            candidates.add(Arrays.copyOfRange(sm, 0, sm.length - msg.length));
        }
        for (byte[] sig : candidates) {
            try {
                if (verifier(alg, pk).verifySignature(msg, sig)) return true;
            } catch (RuntimeException e) {
                // a malformed candidate: try the next
            }
        }
        return false;
    }

    private static int[] katVerify(String alg, List<String> lines) {
        int ok = 0, total = 0;
        Map<String, String> record = new HashMap<>();
        lines.add("");
        for (String line : lines) {
            int eq = line.indexOf(" = ");
            if (eq > 0) {
                record.put(line.substring(0, eq).trim(), line.substring(eq + 3).trim());
            } else if (line.trim().isEmpty() && record.containsKey("pk")) {
                total++;
                if (verifiesRecord(alg, record)) ok++;
                record.clear();
            }
        }
        return new int[] {ok, total};
    }

    private static byte[] read(String path) throws Exception { return Files.readAllBytes(Paths.get(path)); }

    private static void write(String path, byte[] data) throws Exception { Files.write(Paths.get(path), data); }

    public static void main(String[] args) throws Exception {
        switch (args.length > 0 ? args[0] : "") {
        case "keygen": {
            AsymmetricCipherKeyPair kp = generator(args[1]).generateKeyPair();
            write(args[2], SubjectPublicKeyInfoFactory.createSubjectPublicKeyInfo(kp.getPublic()).getEncoded("DER"));
            write(args[3], PrivateKeyInfoFactory.createPrivateKeyInfo(kp.getPrivate()).getEncoded("DER"));
            break;
        }
        case "encaps": {
            AsymmetricKeyParameter pub = PublicKeyFactory.createKey(read(args[1]));
            SecretWithEncapsulation s = encapsulator(pub).generateEncapsulated(pub);
            write(args[2], s.getEncapsulation());
            write(args[3], s.getSecret());
            break;
        }
        case "decaps": {
            AsymmetricKeyParameter priv = PrivateKeyFactory.createKey(read(args[1]));
            write(args[3], decapsulator(priv).extractSecret(read(args[2])));
            break;
        }
        case "oid": {
            AsymmetricCipherKeyPair kp = generator(args[1]).generateKeyPair();
            SubjectPublicKeyInfo spki = SubjectPublicKeyInfoFactory.createSubjectPublicKeyInfo(kp.getPublic());
            System.out.println(spki.getAlgorithm().getAlgorithm().getId());
            break;
        }
        case "katverify": {
            int[] counts = katVerify(args[1], Files.readAllLines(Paths.get(args[2])));
            System.out.println(args[1] + " " + args[2] + ": " + counts[0] + " of " + counts[1] + " verify");
            break;
        }
        case "selfkat": {
            StringBuilder rsp = new StringBuilder();
            for (int i = 0; i < Integer.parseInt(args[3]); i++) {
                AsymmetricCipherKeyPair kp = generator(args[1]).generateKeyPair();
                MessageSigner signer = HAETAE.containsKey(args[1]) ? new HAETAESigner() : new AIMerSigner();
                signer.init(true, kp.getPrivate());
                byte[] msg = new byte[33 * (i + 1)];
                RANDOM.nextBytes(msg);
                byte[] pk = SubjectPublicKeyInfoFactory.createSubjectPublicKeyInfo(kp.getPublic()).getPublicKeyData()
                                .getOctets();
                rsp.append("count = ").append(i).append("\npk = ").append(Hex.toHexString(
                    org.bouncycastle.asn1.ASN1OctetString.getInstance(pk).getOctets())).append("\nmsg = ")
                    .append(Hex.toHexString(msg)).append("\nsig = ").append(Hex.toHexString(signer.generateSignature(msg)))
                    .append("\n\n");
            }
            write(args[2], rsp.toString().getBytes());
            break;
        }
        default:
            System.err.println("usage: KpqcBc keygen|encaps|decaps|oid|katverify|selfkat ...");
            System.exit(2);
        }
    }
}
